import UploadEngine

/// Everything a worker publishes on the events topic.
public enum WorkerEvent: Sendable, Hashable {
    /// A batch event from the engine (progress, uploaded, rejected, failed, removed, completed).
    case upload(UploadEvent)
    case messageSent(MessageOutcome, messageType: MediaKind, fileIds: [String], responseId: String?)
    case messageFailed(MessageOutcome, error: WireError, attempt: Int, willRetry: Bool)
    /// A record invalid as a whole. `dlq` is `"ok"` when its copy reached the dead-letter topic, else
    /// `"failed: <reason>"` (the record is committed either way, so it cannot wedge its partition).
    case jobInvalid(batchId: String, requestId: String, reason: String, topic: String, partition: Int32, offset: Int64,
                    dlq: String = "ok")

    /// Who a message event is about.
    public struct MessageOutcome: Sendable, Hashable {
        public var batchId: String
        public var requestId: String
        public var muid: String
        public init(batchId: String, requestId: String, muid: String) {
            self.batchId = batchId
            self.requestId = requestId
            self.muid = muid
        }
    }

    /// The CloudEvents `type`.
    public var type: String {
        switch self {
        case .upload(let event):
            switch event.kind {
            case .progress: "attache.file.progress"
            case .uploaded: "attache.file.uploaded"
            case .rejected: "attache.file.rejected"
            case .failed: "attache.file.failed"
            case .removed: "attache.file.removed"
            case .completed: "attache.batch.completed"
            }
        case .messageSent: "attache.message.sent"
        case .messageFailed: "attache.message.failed"
        case .jobInvalid: "attache.job.invalid"
        }
    }

    /// The batch the event is about: the CloudEvents `subject` and the record key.
    public var batchId: String {
        switch self {
        case .upload(let event): event.batchId
        case .messageSent(let outcome, _, _, _), .messageFailed(let outcome, _, _, _): outcome.batchId
        case .jobInvalid(let batchId, _, _, _, _, _, _): batchId
        }
    }
}
