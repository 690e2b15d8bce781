/// One upload attempt's inputs.
public struct UploadTransfer: Sendable, Hashable {
    public var target: UploadTarget
    public var staged: StagedFile
    public var mimeType: String
    /// Sent as `traceparent` / `tracestate` request headers.
    public var trace: TraceContext?
    /// Whose share of the worker the upload uses: its bytes count against that tenant's upload rate cap.
    public var tenant: String?

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
public protocol Uploader: Sendable {
    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) async throws
}
