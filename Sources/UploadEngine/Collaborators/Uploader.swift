import WireFormat

/// One upload attempt's inputs.
public struct UploadTransfer: Sendable, Hashable {
    public var target: UploadTarget
    public var staged: StagedFile
    public var mimeType: String
    /// Sent as `traceparent` / `tracestate` request headers.
    public var trace: TraceContext?
    /// Whose share of the worker the upload uses: its bytes count against that tenant's upload rate cap.
    public var tenant: String?
    /// The multipart upload an earlier attempt of the file started, to resume when the bytes are the same.
    public var multipart: MultipartUpload?
    /// The file holds one of the worker's transfer slots for the whole upload (its runner shares them): one request
    /// of it at a time runs on that slot, with no other cap to wait for. Waiting there would count against
    /// `upload.stallTimeout`, which must only count while bytes can move (DESIGN §4). Requests beyond that one
    /// (a multipart upload's parallel parts) still wait for the HTTP client's cap.
    public var holdsSlot = false

    public init(target: UploadTarget, staged: StagedFile, mimeType: String) {
        self.target = target
        self.staged = staged
        self.mimeType = mimeType
    }
}

/// Moves a staged file's bytes to storage.
///
/// Implementers stream `staged.bytes` (a staging copy from disk, an open source through its positioned reads, never
/// by name), report progress as `(bytesSent, totalBytes)`, and throw `UploadError` classified by code
/// (`ERR_S3_UPLOAD_FAILED`, `ERR_PRESIGNED_URL_EXPIRED`, `ERR_UPLOAD_STALLED`, `ERR_INVALID_URL`, …) with `retryAfter`
/// when the server sent one. Cancellation of the calling task aborts the transfer at once.
///
/// Each report restarts the batch's `upload.stallTimeout`, which counts only while bytes could move and none do. An
/// upload that waits on the worker's own limits or on storage's answer — a bandwidth cap with no bytes to spare,
/// CompleteMultipartUpload assembling the parts — repeats its last `bytesSent` at least once every few seconds
/// while it waits. It never repeats one on a timer while its bytes are in flight: telling those apart is what the
/// timeout is for.
public protocol Uploader: Sendable {
    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) async throws
    /// An upload that can resume: storage that uploads in parts reports its multipart upload to `stored` when it
    /// starts it and as each part is stored, resumes `transfer.multipart` when the bytes are the ones it was started
    /// for (reporting the bytes already stored as progress first), and otherwise aborts it and starts afresh. It
    /// never aborts an upload it reported itself: failed or cancelled, the upload stays for the next attempt, and
    /// the batch says when to give it up (``abandon(_:)``). The default is `upload(_:progress:)`.
    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void,
                stored: @escaping @Sendable (MultipartUpload) -> Void) async throws
    /// Aborts a multipart upload whose file was given up, removed or cleared, so storage frees its parts. Best
    /// effort: an upload this cannot reach is left to `attache storage sweep` and the bucket's lifecycle rule. The
    /// default does nothing.
    func abandon(_ upload: MultipartUpload) async
}

extension Uploader {
    public func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void,
                       stored: @escaping @Sendable (MultipartUpload) -> Void) async throws {
        try await upload(transfer, progress: progress)
    }

    public func abandon(_ upload: MultipartUpload) async {}
}
