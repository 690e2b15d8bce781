import Foundation
import WireFormat

/// Reads one snapshot back into the engine's model, checking every field: a snapshot is input from a topic that
/// other processes write, so a malformed one is refused with the field it got wrong, never trusted half-way.
struct SnapshotReader {
    let value: JSONValue
    let configuration: EngineConfiguration

    func read() throws -> BatchSnapshot.Restored {
        guard case .object = value else { throw failure("not an object") }
        let version = try int("v", in: value)
        guard version == Int64(BatchSnapshot.formatVersion) else {
            throw failure("format \(version) is not one this worker reads (\(BatchSnapshot.formatVersion))")
        }
        let batchId = try string("batchId", in: value)
        if value["cleared"] == .bool(true) { return try readCleared(batchId: batchId) }
        let receiverValue = value["receiver"] ?? .null
        guard let receiverType = Receiver.Kind(rawValue: try string("type", in: receiverValue)) else {
            throw failure("receiver.type is not user or group")
        }
        let context = BatchContext(batchId: batchId, receiver: Receiver(id: try string("id", in: receiverValue), type: receiverType),
                                   sender: optionalString("sender", in: value),
                                   parentMessageId: optionalString("parentMessageId", in: value),
                                   tenant: optionalString("tenant", in: value))
        var batch = UploadBatch(context: context, configuration: configuration, concurrency: Int(try int("concurrency", in: value)),
                                options: try options(value["message"] ?? .null))
        guard case .array(let files) = value["files"] ?? .null else { throw failure("files is not an array") }
        for file in files {
            let entry = try self.entry(file)
            guard batch.entries.last.map({ $0.slot < entry.slot }) ?? true else { throw failure("files are not in slot order") }
            batch.entries.append(entry)
            if entry.state == .rejected {
                batch.directory.addRejected(entry.fileId, slot: entry.slot)
            } else {
                guard batch.directory.live[entry.fileId] == nil else { throw failure("fileId \(entry.fileId) is live twice") }
                batch.directory.addLive(entry.fileId, slot: entry.slot)
            }
        }
        batch.droppedRejections = Int(try int("rejectedDropped", in: value))
        batch.nextSlot = max(Int(try int("nextSlot", in: value)), (batch.entries.last?.slot ?? -1) + 1)
        try readSending(into: &batch)
        batch.lastSettledRequestId = optionalString("lastRequestId", in: value) ?? ""
        if case .object(let traces) = value["traces"] ?? .null {
            for (requestId, trace) in traces {
                // Read as any job header is: one that does not parse is left out, not an unreadable snapshot.
                guard let parent = optionalString("traceparent", in: trace),
                      let context = TraceContext(traceparent: parent, tracestate: optionalString("tracestate", in: trace)) else { continue }
                batch.traces[requestId] = context
            }
        }
        try readContinuity(into: &batch)
        // Whatever a file was doing ran on the old owner: it starts again here as a new attempt, under a generation
        // of its own (taken after the snapshot's, so none is ever used twice).
        for index in batch.entries.indices where batch.entries[index].state == .queued {
            batch.entries[index].generation = batch.takeGeneration()
        }
        return BatchSnapshot.Restored(batch: batch, writerGeneration: try int("writerGeneration", in: value))
    }

    /// A cleared batch: no receiver, files or messages, only what a batch re-created under its id continues.
    private func readCleared(batchId: String) throws -> BatchSnapshot.Restored {
        var batch = UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "", type: .user)),
                                configuration: configuration)
        batch.isCleared = true
        try readContinuity(into: &batch)
        return BatchSnapshot.Restored(batch: batch, writerGeneration: try int("writerGeneration", in: value))
    }

    private func readContinuity(into batch: inout UploadBatch) throws {
        batch.eventSequence = UInt64(max(0, try int("sequence", in: value)))
        // Snapshots written before the field was: past every generation the files hold.
        let highest = batch.entries.map(\.generation).max() ?? -1
        batch.nextGeneration = max(Int(optionalInt("nextGeneration", in: value) ?? 0), highest + 1)
        batch.stateVersion = Int(try int("stateVersion", in: value))
        batch.completions = Int(try int("completions", in: value))
        batch.appliedThrough = optionalInt("appliedThrough", in: value)
        batch.updatedAt = optionalInt("updatedAt", in: value).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    private func options(_ value: JSONValue) throws -> MessageOptions {
        guard let mode = MessageOptions.SendMode(rawValue: try string("send", in: value)) else {
            throw failure("message.send is not auto, manual or none")
        }
        var options = MessageOptions(send: mode, caption: optionalString("caption", in: value))
        if case .object(let metadata) = value["metadata"] ?? .null { options.metadata = metadata }
        if case .array(let tags) = value["tags"] ?? .null { options.tags = tags.compactMap { if case .string(let tag) = $0 { tag } else { nil } } }
        return options
    }

    private func readSending(into batch: inout UploadBatch) throws {
        guard case .array(let sent) = value["sent"] ?? .null else { throw failure("sent is not an array") }
        for message in sent {
            let fileIds = try strings("fileIds", in: message)
            batch.sending.sent.append(SentMessage(muid: try string("muid", in: message), fileIds: fileIds))
            batch.sending.sentFileIds.formUnion(fileIds)
        }
        batch.sending.captionSent = value["captionSent"] == .bool(true)
        batch.sending.requestId = optionalString("sendRequestId", in: value) ?? ""
        if let run = value["sendRun"] {
            batch.sending.run = try self.run(run, in: batch)
            batch.sending.requested = value["sendRequested"] == .bool(true)
        }
        // A snapshot written before plans were recorded, or a plan whose files all left: planned again.
        if batch.sending.run == nil { batch.sending.requested = value["sendDue"] == .bool(true) }
    }

    /// A send under way as it was planned, due at once: its plan was recorded before any of it was posted, so its
    /// muids are the ones a message already delivered went out with. Attachments come from the files, which are
    /// uploaded (a file removed since leaves its message; a message left with none is dropped).
    private func run(_ value: JSONValue, in batch: UploadBatch) throws -> SendRun? {
        guard case .array(let messages) = value["plan"] ?? .null else { throw failure("sendRun.plan is not an array") }
        let next = Int(try int("next", in: value))
        var plan: [PlannedMessage] = []
        var remaining = 0
        for (index, message) in messages.enumerated() {
            let fileIds = try strings("fileIds", in: message)
            guard case .array(let numbers) = message["generations"] ?? .null, numbers.count == fileIds.count else {
                throw failure("sendRun.plan generations do not match its fileIds")
            }
            guard let type = MediaKind(rawValue: try string("type", in: message)) else { throw failure("sendRun.plan type is unknown") }
            var attachments: [Attachment] = [], generations: [Int] = []
            for (fileId, number) in zip(fileIds, numbers) {
                guard case .int(let generation) = number else { throw failure("sendRun.plan generations hold a non-integer") }
                guard let attachment = batch.attachment(fileId: fileId) else { continue }
                attachments.append(attachment)
                generations.append(Int(generation))
            }
            guard !attachments.isEmpty else { continue }
            if index >= next { remaining += 1 }
            plan.append(PlannedMessage(muid: try string("muid", in: message), type: type, attachments: attachments,
                                       generations: generations, caption: optionalString("caption", in: message)))
        }
        guard remaining > 0 else { return nil }
        return SendRun(plan: plan, next: plan.count - remaining, notBefore: .distantPast)
    }

    private func entry(_ value: JSONValue) throws -> FileEntry {
        let fileId = try string("fileId", in: value)
        let state = try string("state", in: value)
        // A large batch's snapshot leaves the sources of settled files out: nothing stages them again.
        let settled = state == "uploaded" || state == "rejected"
        let source = try value["source"].map(source) ?? (settled ? .releasedData(byteCount: 0) : source(.null))
        let item = FileItem(fileId: fileId, name: try string("name", in: value), mimeType: optionalString("mimeType", in: value),
                            declaredSize: optionalInt("size", in: value), source: source,
                            stripLocation: value["stripLocation"].flatMap { if case .bool(let strip) = $0 { strip } else { nil } })
        var entry = FileEntry(slot: Int(try int("slot", in: value)), item: item, requestId: try string("requestId", in: value),
                              generation: Int(try int("generation", in: value)))
        entry.attempt = max(1, Int(try int("attempt", in: value)))
        if case .recorded(let origin, _) = item.source { entry.item.origin = origin }
        switch state {
        case "pending":
            // A new generation follows once the batch's are known (see `read`).
            entry.phase = .queued(Queued())
        case "uploaded":
            let attachment = try self.attachment(fileId: fileId, value["attachment"] ?? .null)
            let target = optionalString("object", in: value).map { UploadTarget(uploadURL: $0, fileURL: attachment.url) }
            entry.phase = .uploaded(Uploaded(attachment: attachment, target: target))
            entry.progress.reportedBytes = attachment.size
            entry.item.releaseInlineBytes()
        case "failed":
            entry.phase = .failed(Failed(error: try error(value["error"] ?? .null), retained: Retained()))
        case "rejected":
            entry.phase = .rejected(try error(value["error"] ?? .null))
            entry.item.releaseInlineBytes()
        case let other:
            throw failure("file \(fileId) has state \(other)")
        }
        if let upload = value["multipart"], entry.state == .queued || entry.state == .failed {
            entry.multipart = try multipart(upload)
        }
        return entry
    }

    private func multipart(_ value: JSONValue) throws -> MultipartUpload {
        var parts: [MultipartUpload.Part] = []
        if case .array(let listed) = value["parts"] ?? .array([]) {
            for part in listed {
                parts.append(MultipartUpload.Part(number: Int(try int("number", in: part)), etag: try string("etag", in: part),
                                                  sha256: optionalString("sha256", in: part) ?? ""))
            }
        } else {
            throw failure("multipart.parts is not an array")
        }
        // Only ever compared with what staging tells: one too long to be a version is not kept, and the next attempt
        // hashes the source as for an upload that recorded none.
        let version = MultipartUpload.keepableVersion(optionalString("sourceVersion", in: value))
        return MultipartUpload(key: try string("key", in: value), uploadId: try string("uploadId", in: value),
                               partSize: try int("partSize", in: value), sha256: try string("sha256", in: value),
                               sourceVersion: version, parts: parts)
    }

    private func source(_ value: JSONValue) throws -> FileSource {
        if let url = optionalString("url", in: value) { return .url(url) }
        if let path = optionalString("path", in: value) { return .path(path) }
        if let reason = optionalString("malformed", in: value) { return .malformed(reason) }
        let count = try int("bytes", in: value)
        guard let record = value["record"] else { return .releasedData(byteCount: count) }
        let origin = RecordOrigin(partition: Int32(clamping: try int("partition", in: record)), offset: try int("offset", in: record),
                                  index: Int(try int("index", in: record)))
        return .recorded(origin, byteCount: count)
    }

    private func attachment(fileId: String, _ value: JSONValue) throws -> Attachment {
        Attachment(fileId: fileId, name: try string("name", in: value), url: try string("url", in: value),
                   mimeType: try string("mimeType", in: value), size: try int("size", in: value),
                   sha256: try string("sha256", in: value), encryption: optionalString("encryption", in: value))
    }

    private func error(_ value: JSONValue) throws -> UploadError {
        UploadError(UploadErrorCode(try string("code", in: value)), try string("message", in: value),
                    retryable: value["retryable"] == .bool(true))
    }

    // MARK: - Fields

    private func string(_ key: String, in object: JSONValue) throws -> String {
        guard case .string(let text) = object[key] ?? .null else { throw failure("\(key) is missing or not a string") }
        return text
    }

    private func optionalString(_ key: String, in object: JSONValue) -> String? {
        if case .string(let text) = object[key] ?? .null { return text }
        return nil
    }

    private func strings(_ key: String, in object: JSONValue) throws -> [String] {
        guard case .array(let items) = object[key] ?? .null else { throw failure("\(key) is not an array") }
        return try items.map { item in
            guard case .string(let text) = item else { throw failure("\(key) holds a non-string") }
            return text
        }
    }

    private func int(_ key: String, in object: JSONValue) throws -> Int64 {
        guard case .int(let number) = object[key] ?? .null else { throw failure("\(key) is missing or not an integer") }
        return number
    }

    private func optionalInt(_ key: String, in object: JSONValue) -> Int64? {
        if case .int(let number) = object[key] ?? .null { return number }
        return nil
    }

    private func failure(_ reason: String) -> BatchSnapshot.DecodingError {
        BatchSnapshot.DecodingError(reason: reason)
    }
}
