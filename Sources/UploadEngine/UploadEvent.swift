/// Something that happened to a batch, in the order it happened. The worker publishes each as a CloudEvent.
public struct UploadEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Bytes sent so far; throttled, never backwards, the last one of a successful upload is 100 %.
        case progress(loaded: Int64, total: Int64, percent: Int)
        case uploaded(Attachment)
        /// Not retryable: the input or policy is wrong.
        case rejected(UploadError)
        /// Retryable; `willRetry` says whether an automatic attempt follows.
        case failed(UploadError, attempt: Int, willRetry: Bool)
        /// The file left the batch through `remove` or `clear` (no failure is reported for it).
        case removed
        /// The batch became idle; the whole batch's state.
        case completed(UploadResult)
    }

    public var batchId: String
    /// The request that introduced the file; for `completed`, the request whose file settled last.
    public var requestId: String
    /// The file the event is about; nil for `completed`.
    public var fileId: String?
    public var kind: Kind

    public init(batchId: String, requestId: String, fileId: String?, kind: Kind) {
        self.batchId = batchId
        self.requestId = requestId
        self.fileId = fileId
        self.kind = kind
    }
}

extension UploadEvent {
    /// Whether this is a batch's `completed` event.
    public var isCompletion: Bool {
        if case .completed = kind { return true }
        return false
    }
}
