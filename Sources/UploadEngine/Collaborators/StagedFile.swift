/// A file's bytes, copied into the staging directory; owned by the batch until it is released.
public struct StagedFile: Sendable, Hashable {
    /// Absolute path of the staged copy (a generated name, never the user's).
    public var path: String
    public var size: Int64
    /// Hex SHA-256 of the bytes, computed while they streamed in.
    public var sha256: String
    /// The mime type the content shows (sniffed), or the declared one when sniffing had nothing to say.
    public var mimeType: String?

    public init(path: String, size: Int64, sha256: String, mimeType: String? = nil) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
    }
}

/// Copies a file's source into staging.
///
/// Implementers enforce `sizeLimit` while bytes arrive, remove partial copies on failure or cancellation,
/// and throw `UploadError`: retryable for transient fetch failures (`ERR_SOURCE_FETCH_FAILED`), not retryable for
/// everything a retry cannot fix. Cancellation of the calling task must stop the copy.
public protocol SourceStager: Sendable {
    func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile
    /// Gives the bytes back (delete, or hand them to a cache). Called once per staged file that leaves the batch.
    func release(_ staged: StagedFile) async
    /// `release` without the caller waiting for it: how the engine gives bytes back, from under its lock, so it
    /// must not block. The default starts a task that calls `release`.
    func releaseInBackground(_ staged: StagedFile)
}

extension SourceStager {
    /// Starts a task that calls `release`.
    public func releaseInBackground(_ staged: StagedFile) {
        Task { await release(staged) }
    }
}
