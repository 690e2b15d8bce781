import KafkaIO
import UploadEngine
import WireFormat

/// Everything a worker publishes on the events topic.
public enum WorkerEvent: Sendable, Hashable {
    /// A batch event from the engine (progress, uploaded, rejected, failed, removed, completed, message sent or
    /// failed).
    case upload(UploadEvent)
    /// A record invalid as a whole. `dlq` is `"ok"` when its copy reached the dead-letter topic, else
    /// `"failed: <reason>"` (the record is committed either way, so it cannot wedge its partition).
    case jobInvalid(batchId: String, requestId: String, reason: String, topic: String, partition: Int32, offset: Int64,
                    dlq: String = "ok", trace: TraceContext? = nil)

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
            case .messageSent: "attache.message.sent"
            case .messageFailed: "attache.message.failed"
            }
        case .jobInvalid: "attache.job.invalid"
        }
    }

    /// The batch the event is about: the CloudEvents `subject` and the record key.
    public var batchId: String {
        switch self {
        case .upload(let event): event.batchId
        case .jobInvalid(let batchId, _, _, _, _, _, _, _): batchId
        }
    }

    /// The trace context of the job the event is about (DESIGN §2.2), carried as attributes and headers.
    public var trace: TraceContext? {
        switch self {
        case .upload(let event): event.trace
        case .jobInvalid(_, _, _, _, _, _, _, let trace): trace
        }
    }

    /// The batch's tenant, when its job named one; an invalid job has none.
    public var tenant: String? {
        if case .upload(let event) = self { return event.tenant }
        return nil
    }
}

extension WorkerEvent {
    /// The name of a deterministic event id, in parts hashed NUL-joined (ids cannot hold NUL, so the name is
    /// unambiguous): the batch, the file or message, the type and the engine's identity (generation and attempt, or
    /// state version). nil for events whose repeats need not be recognised (progress, job.invalid).
    var stableName: [String]? {
        guard case .upload(let event) = self else { return nil }
        if case .progress = event.kind { return nil }
        return [event.batchId, event.fileId ?? event.muid ?? "", type, event.identity]
    }
}

extension WorkerEvent {
    /// The `attache.job.invalid` event of a record refused as a whole, made only of what is bounded whatever the
    /// record holds: its key is the event's batch id only when it could be one (else the batch id is empty), and its
    /// trace headers count only within their limits (``RecordField``).
    public static func invalidRecord(_ provenance: JobDecoder.Provenance, headers: [KafkaHeader], reason: String,
                                     dlq: String = "ok") -> WorkerEvent {
        let batchId = provenance.key.flatMap { RecordField.batchId.problem(with: $0) == nil ? $0 : nil } ?? ""
        return .jobInvalid(batchId: batchId, requestId: "\(provenance.topic)/\(provenance.partition)/\(provenance.offset)",
                           reason: reason, topic: provenance.topic, partition: provenance.partition, offset: provenance.offset,
                           dlq: dlq, trace: TraceContext(kafkaHeaders: headers))
    }
}
