import Foundation
import WireFormat

/// A batch's durable state as the changelog carries it (`attache.batches`): the engine's model encoded, so a new
/// owner decodes the same batch — files with their ids, states, attempts and errors, what was sent, the event
/// sequence — and nothing of it lives anywhere else.
///
/// What a snapshot leaves out, on purpose: staged bytes and presigned URLs (a credential) stay on the worker that
/// had them; files in flight become queued again, and resume on the new owner with their ids and attempt counts.
/// Inline bytes are not copied either: the file keeps the jobs-topic record that carried them (``RecordOrigin``).
public enum BatchSnapshot {
    /// The format written; a reader refuses a snapshot of a later format rather than misread it.
    public static let formatVersion = 1

    /// Why a snapshot could not be read.
    public struct DecodingError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "batch snapshot: \(reason)" }
    }

    /// The batch encoded as JSON, in at most `maxBytes` (events.maxBytes: the changelog accepts what the events
    /// topic does). A batch too large first leaves out the sources of settled files (uploaded and rejected ones are
    /// never staged again), then keeps fewer of its rejected files (their count stays) and shorter error messages;
    /// nil if even that does not fit, which takes thousands of pending files with long URLs (never at the default
    /// limits: records' strings are bounded where they are decoded). The writer's own buffer, handed over uncopied:
    /// what the changelog record and the store's row share.
    public static func encode(_ batch: UploadBatch, writerGeneration: Int64, maxBytes: Int) -> Data? {
        var writer = SnapshotWriter(batch: batch, writerGeneration: writerGeneration)
        for plan in SnapshotWriter.Plan.fallbacks {
            writer.plan = plan
            if let data = writer.encode(within: maxBytes) { return data }
        }
        return nil
    }

    /// Reads a snapshot into a batch run by `configuration`. Files that were in flight come back queued (without
    /// retained bytes), so ``UploadBatch/resume(now:)`` starts them again.
    public static func decode(_ bytes: some Collection<UInt8>, configuration: EngineConfiguration) throws -> Restored {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DecodingError(reason: "not JSON (\(error))")
        }
        return try SnapshotReader(value: value, configuration: configuration).read()
    }

    /// A decoded snapshot.
    public struct Restored: Sendable {
        public var batch: UploadBatch
        /// The fencing epoch of the worker that wrote it, for fencing a zombie's late writes.
        public var writerGeneration: Int64
    }
}

/// The JSON of one snapshot.
struct SnapshotWriter {
    /// How much of a large batch to keep.
    struct Plan {
        var rejectedKept: Int
        var errorMessageBytes: Int
        /// Whether uploaded and rejected files keep their source: only pending and failed ones are staged again.
        var settledSources: Bool
        /// Whether multipart uploads keep their list of stored parts. Without it the upload is still resumed, its
        /// parts sent again into it: a resume costs bytes, never the file.
        var multipartParts = true

        static let fallbacks = [
            Plan(rejectedKept: UploadResult.rejectedLimit, errorMessageBytes: 1024, settledSources: true),
            // Enough for the largest batch accepted records can make at the default limits: 100 rejected files
            // whose strings are all at their byte limits.
            Plan(rejectedKept: UploadResult.rejectedLimit, errorMessageBytes: 1024, settledSources: false),
            Plan(rejectedKept: 10, errorMessageBytes: 256, settledSources: false),
            Plan(rejectedKept: 10, errorMessageBytes: 256, settledSources: false, multipartParts: false),
            Plan(rejectedKept: 0, errorMessageBytes: 64, settledSources: false, multipartParts: false),
        ]
    }

    let batch: UploadBatch
    let writerGeneration: Int64
    var plan = Plan.fallbacks[0]

    /// The snapshot's bytes, or nil once they pass `maxBytes`: a plan that does not fit is given up at the file that
    /// overflows it, not written out whole.
    func encode(within maxBytes: Int = .max) -> Data? {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.field("v", BatchSnapshot.formatVersion)
        json.field("batchId", batch.batchId)
        if batch.isCleared {
            writeCleared(into: &json)
            json.endObject()
            return json.byteCount <= maxBytes ? json.data() : nil
        }
        json.key("receiver")
        json.beginObject()
        json.field("id", batch.context.receiver.id)
        json.field("type", batch.context.receiver.type.rawValue)
        json.endObject()
        if let sender = batch.context.sender { json.field("sender", sender) }
        if let parent = batch.context.parentMessageId { json.field("parentMessageId", parent) }
        if let tenant = batch.context.tenant { json.field("tenant", tenant) }
        json.field("concurrency", batch.concurrency)
        writeOptions(into: &json)
        // Most batches keep every rejection: no list of them, nor of those left out, is made for those.
        let rejectedCount = batch.entries.countStates { $0 == .rejected }
        let dropped = max(0, rejectedCount - plan.rejectedKept)
        let skipped: Set<Int> = dropped == 0 ? [] : Set(batch.entries.lazy.filter { $0.state == .rejected }.prefix(dropped).map(\.slot))
        json.key("files")
        json.beginArray()
        for entry in batch.entries where dropped == 0 || !skipped.contains(entry.slot) {
            write(entry, into: &json)
            if json.byteCount > maxBytes { return nil }
        }
        json.endArray()
        json.field("rejectedDropped", batch.droppedRejections + dropped)
        json.field("nextSlot", batch.nextSlot)
        writeSending(into: &json)
        json.field("lastRequestId", batch.lastSettledRequestId)
        if !batch.traces.isEmpty { writeTraces(into: &json) }
        writeContinuity(into: &json)
        json.endObject()
        return json.byteCount <= maxBytes ? json.data() : nil
    }

    /// A cleared batch (DESIGN §4.1 *Clear*): nothing of its files, context or messages — only what a batch
    /// re-created under its id continues, so its events are not taken for stale ones or repeats.
    private func writeCleared(into json: inout JSONWriter) {
        json.field("cleared", true)
        writeContinuity(into: &json)
    }

    /// What never goes back for a batch id: the event sequence, the generations, the state version and the count of
    /// completions (event ids are made of them), and the jobs-topic offset applied (a replay of a record from before
    /// a clear must not bring the cleared files back).
    private func writeContinuity(into json: inout JSONWriter) {
        json.field("sequence", batch.eventSequence)
        json.field("nextGeneration", batch.nextGeneration)
        json.field("stateVersion", batch.stateVersion)
        json.field("completions", batch.completions)
        if let applied = batch.appliedThrough { json.field("appliedThrough", applied) }
        if let updatedAt = batch.updatedAt { json.field("updatedAt", Int64((updatedAt.timeIntervalSince1970 * 1000).rounded())) }
        json.field("writerGeneration", writerGeneration)
    }

    /// Requests' trace contexts by request id, in id order (a snapshot of the same state is the same bytes).
    private func writeTraces(into json: inout JSONWriter) {
        json.key("traces")
        json.beginObject()
        for (requestId, trace) in batch.traces.sorted(by: { $0.key < $1.key }) {
            json.key(named: requestId)
            json.beginObject()
            json.field("traceparent", trace.traceparent)
            if let state = trace.tracestate { json.field("tracestate", state) }
            json.endObject()
        }
        json.endObject()
    }

    private func writeOptions(into json: inout JSONWriter) {
        let options = batch.sending.options
        json.key("message")
        json.beginObject()
        json.field("send", options.send.rawValue)
        if let caption = options.caption { json.field("caption", caption) }
        if !options.metadata.isEmpty {
            json.key("metadata")
            json.value(.object(options.metadata))
        }
        if !options.tags.isEmpty {
            json.key("tags")
            json.value(.array(options.tags.map(JSONValue.string)))
        }
        json.endObject()
    }

    private func writeSending(into json: inout JSONWriter) {
        let sending = batch.sending
        json.key("sent")
        json.beginArray()
        for message in sending.sent {
            json.beginObject()
            json.field("muid", message.muid)
            json.key("fileIds")
            json.value(.array(message.fileIds.map(JSONValue.string)))
            json.endObject()
        }
        json.endArray()
        json.field("captionSent", sending.captionSent)
        json.field("sendDue", sending.requested || sending.run != nil)
        if sending.run != nil { json.field("sendRequested", sending.requested) }
        json.field("sendRequestId", sending.requestId)
        if let run = sending.run { writeRun(run, into: &json) }
    }

    /// A send under way, as planned (§4.1 *Sends*): the next owner posts the messages not yet sent with the muids
    /// and files of this plan, never a new one (files uploaded meanwhile would change the chunks and the muids, and
    /// a message already delivered would go out again).
    private func writeRun(_ run: SendRun, into json: inout JSONWriter) {
        json.key("sendRun")
        json.beginObject()
        json.field("next", run.next)
        json.key("plan")
        json.beginArray()
        for message in run.plan {
            json.beginObject()
            json.field("muid", message.muid)
            json.field("type", message.type.rawValue)
            json.key("fileIds")
            json.value(.array(message.fileIds.map(JSONValue.string)))
            json.key("generations")
            json.value(.array(message.generations.map { .int(Int64($0)) }))
            if let caption = message.caption { json.field("caption", caption) }
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    private func write(_ entry: FileEntry, into json: inout JSONWriter) {
        json.beginObject()
        json.field("fileId", entry.fileId)
        json.field("slot", entry.slot)
        json.field("name", entry.item.name)
        if let mime = entry.item.mimeType { json.field("mimeType", mime) }
        if let size = entry.item.declaredSize { json.field("size", size) }
        if let strip = entry.item.stripLocation { json.field("stripLocation", strip) }
        json.field("requestId", entry.requestId)
        json.field("generation", entry.generation)
        json.field("attempt", entry.attempt)
        switch entry.phase {
        case .queued, .staging, .presigning, .uploading:
            json.field("state", "pending")
        case .uploaded(let uploaded):
            json.field("state", "uploaded")
            json.key("attachment")
            writeAttachment(uploaded.attachment, into: &json)
            if let target = uploaded.target { json.field("object", Self.withoutQuery(target.uploadURL)) }
        case .failed(let failed):
            json.field("state", "failed")
            writeError(failed.error, into: &json)
        case .rejected(let error):
            json.field("state", "rejected")
            writeError(error, into: &json)
        }
        if let upload = entry.multipart { writeMultipart(upload, into: &json) }
        if plan.settledSources || entry.state.isPending || entry.state == .failed {
            json.key("source")
            writeSource(entry.item, into: &json)
        }
        json.endObject()
    }

    /// A multipart upload under way (§12 *Resume across workers*): what its next attempt needs to resume it.
    private func writeMultipart(_ upload: MultipartUpload, into json: inout JSONWriter) {
        json.key("multipart")
        json.beginObject()
        json.field("key", upload.key)
        json.field("uploadId", upload.uploadId)
        json.field("partSize", upload.partSize)
        json.field("sha256", upload.sha256)
        if let version = upload.sourceVersion { json.field("sourceVersion", version) }
        if plan.multipartParts {
            json.key("parts")
            json.beginArray()
            for part in upload.parts {
                json.beginObject()
                json.field("number", part.number)
                json.field("etag", part.etag)
                if !part.sha256.isEmpty { json.field("sha256", part.sha256) }
                json.endObject()
            }
            json.endArray()
        }
        json.endObject()
    }

    private func writeSource(_ item: FileItem, into json: inout JSONWriter) {
        json.beginObject()
        switch item.source {
        case .url(let url): json.field("url", url)
        case .path(let path): json.field("path", path)
        case .malformed(let reason): json.field("malformed", reason)
        case .data(let bytes): writeInline(origin: item.origin, byteCount: Int64(bytes.count), into: &json)
        case .oversizedData(let count), .releasedData(let count): writeInline(origin: item.origin, byteCount: count, into: &json)
        case .recorded(let origin, let count): writeInline(origin: origin, byteCount: count, into: &json)
        }
        json.endObject()
    }

    private func writeInline(origin: RecordOrigin?, byteCount: Int64, into json: inout JSONWriter) {
        json.field("bytes", byteCount)
        guard let origin else { return }
        json.key("record")
        json.beginObject()
        json.field("partition", origin.partition)
        json.field("offset", origin.offset)
        json.field("index", origin.index)
        json.endObject()
    }

    private func writeError(_ error: UploadError, into json: inout JSONWriter) {
        json.key("error")
        json.beginObject()
        json.field("code", error.code.rawValue)
        json.field("message", WireError.cut(error.message, toBytes: plan.errorMessageBytes))
        json.field("retryable", error.isRetryable)
        json.endObject()
    }

    private func writeAttachment(_ attachment: Attachment, into json: inout JSONWriter) {
        json.beginObject()
        json.field("name", attachment.name)
        json.field("url", attachment.url)
        json.field("mimeType", attachment.mimeType)
        json.field("size", attachment.size)
        json.field("sha256", attachment.sha256)
        if let encryption = attachment.encryption { json.field("encryption", encryption) }
        json.endObject()
    }

    /// The object's URL without its query: the presigned part is a credential and never leaves the worker.
    /// Found among the UTF-8 bytes: both are ASCII, and walking a presigned URL's few hundred characters as
    /// `Character`s cost more than the rest of the snapshot.
    static func withoutQuery(_ url: String) -> String {
        guard let end = url.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return url
        }
        return String(url[..<end])
    }
}
