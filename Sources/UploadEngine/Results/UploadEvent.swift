import WireFormat

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
        /// A message of the batch's plan went out; `responseId` is the API's id for it, if it gave one.
        case messageSent(muid: String, type: MediaKind, fileIds: [String], responseId: String?)
        /// A message could not be sent; `willRetry` says whether an automatic attempt follows.
        case messageFailed(muid: String, error: UploadError, attempt: Int, willRetry: Bool)
    }

    public var batchId: String
    /// The request that introduced the file; for `completed`, the request whose file settled last.
    public var requestId: String
    /// The file the event is about; nil for `completed` and message events.
    public var fileId: String?
    public var kind: Kind
    /// Tells this event from others of its type about the same file or message: the file's generation and attempt,
    /// the batch's state version, or the message's attempt. The same input replayed gives the same identity, so
    /// consumers can drop a repeat by the event id made from it.
    public var identity: String
    /// The batch's CloudEvents `sequence` number; 0 until the driver stamps it.
    public var sequence: UInt64 = 0
    /// The trace context of the job whose request this event is about, stamped with the sequence.
    public var trace: TraceContext?
    /// The batch's tenant when its job named one (DESIGN §12), stamped with the sequence.
    public var tenant: String?

    public init(batchId: String, requestId: String, fileId: String?, kind: Kind, identity: String = "") {
        self.batchId = batchId
        self.requestId = requestId
        self.fileId = fileId
        self.kind = kind
        self.identity = identity
    }
}

extension UploadEvent {
    /// Whether this is a batch's `completed` event.
    public var isCompletion: Bool {
        if case .completed = kind { return true }
        return false
    }
}

extension UploadEvent {
    /// The muid of a message event; nil for other events.
    public var muid: String? {
        switch kind {
        case .messageSent(let muid, _, _, _), .messageFailed(let muid, _, _, _): muid
        default: nil
        }
    }
}
