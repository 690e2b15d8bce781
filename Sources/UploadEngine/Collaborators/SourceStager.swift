/// Copies a file's source into staging, or opens it to be read in place.
///
/// Implementers enforce `sizeLimit` while bytes arrive, remove partial copies on failure or cancellation,
/// and throw `UploadError`: retryable for transient fetch failures (`ERR_SOURCE_FETCH_FAILED`), not retryable for
/// everything a retry cannot fix. Cancellation of the calling task must stop the copy.
public protocol SourceStager: Sendable {
    func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile
    /// `stage`, for a file that may have a multipart upload under way (`resuming`), which the attempt resumes if the
    /// bytes are the same: a stager that can tell the source is the version the upload recorded
    /// (``MultipartUpload/sourceVersion``) may take the upload's digest instead of computing it. The engine calls
    /// this one; the default stages as for a new upload.
    func stage(_ file: FileItem, batchId: String, sizeLimit: Int64, resuming upload: MultipartUpload?) async throws
        -> StagedFile
    /// Gives the bytes back (delete, or hand them to a cache). Called once per staged file that leaves the batch.
    func release(_ staged: StagedFile) async
    /// `release` without the caller waiting for it: how the engine gives bytes back, from under its lock, so it
    /// must not block. The default starts a task that calls `release`.
    func releaseInBackground(_ staged: StagedFile)
    /// Whether a file whose attempt failed keeps these bytes, a source read in place, for its next attempt: open
    /// sources held between attempts are capped. False makes the batch give them back, and the next attempt stages
    /// the file again. Called from under the runner's lock, so it must not block. The default keeps them.
    func keep(_ staged: StagedFile) -> Bool
    /// Ends an upload attempt of `staged` before its outcome reaches the batch, and returns the SHA-256 of the
    /// bytes: `staged.sha256`, or for a source hashed while the upload read it, that digest.
    ///
    /// Bytes read in place are checked to be still those staged: a source changed in place throws
    /// `ERR_SOURCE_FETCH_FAILED` (retryable), whatever the upload's outcome, and the batch then gives the bytes back
    /// so that the retry opens the source again. The default checks nothing.
    /// - Parameter uploaded: whether the upload succeeded; only then is the digest needed.
    func finishUpload(of staged: StagedFile, uploaded: Bool) async throws -> String
}

extension SourceStager {
    /// Stages as for a new upload.
    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64, resuming upload: MultipartUpload?) async throws
        -> StagedFile {
        try await stage(file, batchId: batchId, sizeLimit: sizeLimit)
    }

    /// Starts a task that calls `release`.
    public func releaseInBackground(_ staged: StagedFile) {
        Task { await release(staged) }
    }

    /// Keeps every staged file's bytes.
    public func keep(_ staged: StagedFile) -> Bool { true }

    /// `staged.sha256`, unchecked.
    public func finishUpload(of staged: StagedFile, uploaded: Bool) async throws -> String { staged.sha256 }
}
