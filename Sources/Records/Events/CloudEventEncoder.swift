import Foundation
import Synchronization
import UploadEngine
import WireFormat

/// Encodes worker events as CloudEvents 1.0 structured JSON, each within `maxBytes` (`events.maxBytes`).
///
/// Event ids: the events a consumer must be able to drop when repeated (`file.uploaded`, `file.rejected`,
/// `file.failed`, `file.removed`, `batch.completed`, `message.sent`, `message.failed`) get a name-based UUID of what
/// they are about (``WorkerEvent/stableName``), so the same transition published again — by a replay, or by the
/// next owner after a handover — has the same id. The rest are `<worker id>-<boot>-<counter>`: unique across
/// restarts without the cost of a UUID per progress event.
///
/// Size guarantee: whatever the event carries (error messages are already cut to 1 KiB, results list at most 100
/// rejections, but a server's URL or a long list can still be large), the encoded event fits `maxBytes`. One that
/// would not is encoded again with its largest fields summarised (`EventSummary`) — an event the producer refuses
/// would otherwise stop the worker, and the next owner of the partition, on the same record.
public final class CloudEventEncoder: Sendable {
    /// The default of `events.maxBytes`: under Kafka's default 1 MB message limit, with room for key and headers.
    public static let defaultMaxBytes = 900 * 1024
    /// The smallest budget accepted: an envelope with summarised data always fits it.
    public static let minimumMaxBytes = 16 * 1024

    private let source: String
    private let idPrefix: String
    private let counter = Atomic<UInt64>(0)
    /// The largest encoded event.
    public let maxBytes: Int
    /// The namespace of deterministic event ids.
    static let eventNamespace = NameBasedUUID.make(namespace: NameBasedUUID.messageNamespace, name: "attache.events")

    public init(workerId: String, maxBytes: Int = CloudEventEncoder.defaultMaxBytes) {
        // `worker.id` is at most 255 bytes once validated; the cut keeps the envelope bounded for any caller.
        let workerId = WireError.cut(workerId, toBytes: 255)
        source = "attache/\(workerId)"
        idPrefix = "\(workerId)-\(UInt64(Date().timeIntervalSince1970 * 1000))-"
        self.maxBytes = max(maxBytes, Self.minimumMaxBytes)
    }

    /// The JSON bytes of one event, at most `maxBytes` of them; `sequence` increases per batch within this
    /// worker's ownership. The writer's own buffer, handed over uncopied: what a record's value is made of.
    public func encode(_ event: WorkerEvent, sequence: UInt64, time: Date = Date()) -> Data {
        let id = event.stableName.map { NameBasedUUID.string(namespace: Self.eventNamespace, joining: $0) }
            ?? idPrefix + String(counter.add(1, ordering: .relaxed).newValue)
        let json = envelope(event, id: id, sequence: sequence, time: time) { Self.writeData(of: event, into: &$0) }
        let size = json.byteCount
        guard size > maxBytes else { return json.data() }
        // Rare: measure the rest of the envelope, then fit the data into what is left.
        var data = JSONWriter()
        Self.writeData(of: event, into: &data)
        let parsed = data.withBytes { try? JSONParser.parse($0) } ?? .object([:])
        let budget = maxBytes - (size - data.byteCount)
        let fitted = EventSummary.fit(parsed, budget: budget)
        return envelope(event, id: id, sequence: sequence, time: time) { $0.value(fitted) }.data()
    }

    private func envelope(_ event: WorkerEvent, id: String, sequence: UInt64, time: Date,
                          data: (inout JSONWriter) -> Void) -> JSONWriter {
        // Room for the usual event whole (an upload's attachment, a batch's result of a few files run to 1–1.5 KB):
        // growing from the writer's default moved each one twice.
        var json = JSONWriter(capacity: 2048)
        json.beginObject()
        json.field("specversion", "1.0")
        json.field("id", id)
        json.field("source", source)
        json.field("type", event.type)
        // A batch id is at most 128 bytes (RecordField); the cut only bounds what a caller could pass otherwise.
        json.field("subject", WireError.cut(event.batchId, toBytes: EventSummary.identityLimit))
        json.key("time")
        json.time(time)
        json.field("datacontenttype", "application/json")
        json.field("sequence", String(sequence))
        // The CloudEvents distributed-tracing extension.
        if let trace = event.trace {
            json.field("traceparent", trace.traceparent)
            if let state = trace.tracestate { json.field("tracestate", state) }
        }
        // An extension attribute: whose share of the worker the batch uses, when its job named a tenant.
        if let tenant = event.tenant { json.field("tenant", tenant) }
        json.key("data")
        data(&json)
        json.endObject()
        return json
    }

    static func writeData(of event: WorkerEvent, into json: inout JSONWriter) {
        json.beginObject()
        switch event {
        case .upload(let event):
            json.field("batchId", event.batchId)
            json.field("requestId", event.requestId)
            if let fileId = event.fileId { json.field("fileId", fileId) }
            switch event.kind {
            case .progress(let loaded, let total, let percent):
                json.field("loaded", loaded)
                json.field("total", total)
                json.field("percent", percent)
            case .uploaded(let attachment):
                json.key("attachment")
                write(attachment, into: &json)
            case .rejected(let error):
                json.key("error")
                write(WireError(error), into: &json)
            case .failed(let error, let attempt, let willRetry):
                json.key("error")
                write(WireError(error), into: &json)
                json.field("attempt", attempt)
                json.field("willRetry", willRetry)
            case .removed:
                break
            case .completed(let result):
                json.key("result")
                write(result, into: &json)
            case .messageSent(let muid, let messageType, let fileIds, let responseId):
                json.field("muid", muid)
                json.field("messageType", messageType.rawValue)
                json.key("fileIds")
                json.beginArray()
                fileIds.forEach { json.string($0) }
                json.endArray()
                json.key("response")
                json.beginObject()
                if let responseId { json.field("id", responseId) }
                json.endObject()
            case .messageFailed(let muid, let error, let attempt, let willRetry):
                json.field("muid", muid)
                json.key("error")
                write(WireError(error), into: &json)
                json.field("attempt", attempt)
                json.field("willRetry", willRetry)
            }
        case .jobInvalid(let batchId, let requestId, let reason, let topic, let partition, let offset, let dlq, _):
            json.field("batchId", batchId)
            json.field("requestId", requestId)
            json.field("reason", WireError.cut(reason, toBytes: WireError.messageLimit))
            json.field("topic", topic)
            json.field("partition", partition)
            json.field("offset", offset)
            // A producer's refusal, quoted: bounded like any error message.
            json.field("dlq", WireError.cut(dlq, toBytes: WireError.messageLimit))
        }
        json.endObject()
    }

    /// The Attachment object of the wire format (DESIGN §2.2), as events carry it and the dashboard shows it.
    public static func write(_ attachment: Attachment, into json: inout JSONWriter) {
        json.beginObject()
        json.field("fileId", attachment.fileId)
        json.field("name", attachment.name)
        json.field("url", attachment.url)
        json.field("mimeType", attachment.mimeType)
        json.field("extension", attachment.extension)
        json.field("size", attachment.size)
        json.field("type", attachment.type.rawValue)
        json.field("sha256", attachment.sha256)
        if let encryption = attachment.encryption { json.field("encryption", encryption) }
        json.endObject()
    }

    public static func write(_ error: WireError, into json: inout JSONWriter) {
        json.beginObject()
        json.field("code", error.code)
        json.field("message", error.message)
        json.field("retryable", error.retryable)
        json.endObject()
    }

    static func write(_ result: UploadResult, into json: inout JSONWriter) {
        json.beginObject()
        json.field("batchId", result.batchId)
        json.key("successful")
        json.beginArray()
        for entry in result.successful {
            json.beginObject()
            json.field("fileId", entry.fileId)
            json.key("attachment")
            write(entry.attachment, into: &json)
            json.endObject()
        }
        json.endArray()
        json.field("rejectedTotal", result.rejectedTotal)
        for (name, entries) in [("rejected", result.rejected), ("failed", result.failed)] {
            json.key(named: name)
            json.beginArray()
            for entry in entries {
                json.beginObject()
                json.field("fileId", entry.fileId)
                json.key("error")
                write(entry.error, into: &json)
                json.endObject()
            }
            json.endArray()
        }
        json.endObject()
    }
}
