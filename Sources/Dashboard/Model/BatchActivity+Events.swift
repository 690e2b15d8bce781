import Records
import UploadEngine
import WireFormat

extension BatchActivity {
    /// Folds one event of the batch (DESIGN §2.2) in, at `time` (milliseconds since 1970). A repeat of an event
    /// already folded (same CloudEvents id) changes nothing; progress never goes backwards.
    mutating func take(_ event: WatchedEvent, at time: Int64, limits: DashboardLimits) -> EventFold {
        let kind = event.type.hasPrefix("attache.") ? String(event.type.dropFirst("attache.".count)) : event.type
        if kind != "file.progress", let id = event.id, hasRecorded(eventId: id) { return EventFold(duplicate: true) }
        var fold = EventFold()
        var entry = TimelineEntry(time: time, kind: kind, fileId: event.fileId, source: event.source, eventId: event.id)
        let data = event.data
        switch kind {
        case "file.progress":
            guard let fileId = event.fileId else { break }
            var started = false
            updateFile(fileId, creatingAs: .uploading, limits: limits) { file in
                let loaded = data["loaded"]?.wholeNumber ?? file.loaded
                if loaded > file.loaded { fold.bytesMoved = loaded - file.loaded }
                file.loaded = max(file.loaded, loaded)
                if let total = data["total"]?.wholeNumber, total > 0 { file.total = total }
                file.percent = max(file.percent, Int(data["percent"]?.wholeNumber ?? 0))
                guard file.state != .uploaded, file.state != .removed else { return }
                started = file.state != .uploading
                file.state = .uploading
            }
            // One line per attempt: the first report; the file's bar shows the rest.
            guard started || timeline.isEmpty else {
                updated = max(updated, time)
                return fold
            }
            entry.detail = "upload under way, \(Int(data["percent"]?.wholeNumber ?? 0)) %"
        case "file.uploaded":
            guard let fileId = event.fileId else { break }
            let attachment = Self.attachment(data["attachment"])
            updateFile(fileId, creatingAs: .uploaded, limits: limits) { file in
                let size = attachment?.size ?? file.total ?? file.loaded
                if size > file.loaded { fold.bytesMoved = size - file.loaded }
                file.state = .uploaded
                file.loaded = size
                file.total = size
                file.percent = 100
                file.problem = nil
                file.attachment = attachment ?? file.attachment
                if let attachment, file.name == file.fileId { file.name = attachment.name }
                if file.mimeType == nil { file.mimeType = attachment?.mimeType }
            }
            fold.filesUploaded = 1
            entry.detail = "stored" + (attachment.map { ", \(ByteCountText.text($0.size))" } ?? "")
        case "file.rejected", "file.failed":
            guard let fileId = event.fileId else { break }
            let problem = Self.problem(data["error"])
            let willRetry = kind == "file.failed" && data["willRetry"]?.boolValue == true
            let attempt = Int(data["attempt"]?.wholeNumber ?? 0)
            updateFile(fileId, creatingAs: .queued, limits: limits) { file in
                file.state = kind == "file.rejected" ? .rejected : willRetry ? .retrying : .failed
                file.problem = problem
                if attempt > 0 { file.attempt = attempt }
            }
            fold.problem = ProblemNote(kind: kind == "file.rejected" ? .rejected : .failed, time: time, batchId: batchId,
                                       subject: fileId, code: problem.code, message: problem.message, willRetry: willRetry,
                                       source: event.source)
            entry.detail = "\(problem.code): \(problem.message)" + (kind == "file.failed" ? " (attempt \(attempt)\(willRetry ? ", will retry" : ""))" : "")
        case "file.removed":
            guard let fileId = event.fileId else { break }
            updateFile(fileId, creatingAs: .removed, limits: limits) { $0.state = .removed }
        case "batch.completed":
            drains += 1
            let result = data["result"]
            reconcile(with: result, limits: limits)
            let counts = self.counts
            entry.detail = "idle: \(counts[.uploaded] ?? 0) uploaded, \(counts[.rejected] ?? 0) rejected, \(counts[.failed] ?? 0) failed"
        case "message.sent", "message.failed":
            guard let muid = data["muid"]?.stringValue else { break }
            let problem = kind == "message.failed" ? Self.problem(data["error"]) : nil
            let willRetry = data["willRetry"]?.boolValue == true
            updateMessage(muid, at: time, limits: limits) { message in
                if kind == "message.sent" {
                    message.state = .sent
                    message.messageType = data["messageType"]?.stringValue ?? message.messageType
                    message.fileIds = data["fileIds"]?.arrayValue?.compactMap(\.stringValue) ?? message.fileIds
                    message.responseId = data["response"]?["id"]?.stringValue
                    message.problem = nil
                } else {
                    message.state = willRetry ? .retrying : .failed
                    message.problem = problem
                    message.attempt = Int(data["attempt"]?.wholeNumber ?? Int64(message.attempt))
                }
            }
            if let problem {
                fold.problem = ProblemNote(kind: .message, time: time, batchId: batchId, subject: muid, code: problem.code,
                                           message: problem.message, willRetry: willRetry, source: event.source)
                entry.detail = "\(problem.code): \(problem.message)\(willRetry ? " (will retry)" : "")"
            } else {
                let files = data["fileIds"]?.arrayValue?.count ?? 0
                entry.detail = "\(data["messageType"]?.stringValue ?? "message") with \(files) attachment\(files == 1 ? "" : "s")"
            }
        default:
            break
        }
        record(entry, limits: limits)
        return fold
    }

    /// `batch.completed` carries the whole batch's state: its lists are the truth about the files they name.
    private mutating func reconcile(with result: JSONValue?, limits: DashboardLimits) {
        guard let result else { return }
        var successful: Set<String> = []
        for entry in result["successful"]?.arrayValue ?? [] {
            guard let fileId = entry["fileId"]?.stringValue else { continue }
            successful.insert(fileId)
            let attachment = Self.attachment(entry["attachment"])
            updateFile(fileId, creatingAs: .uploaded, limits: limits) { file in
                file.state = .uploaded
                file.problem = nil
                file.percent = 100
                if let attachment {
                    file.attachment = attachment
                    file.loaded = attachment.size
                    file.total = attachment.size
                    if file.name == file.fileId { file.name = attachment.name }
                }
            }
        }
        for entry in result["failed"]?.arrayValue ?? [] {
            guard let fileId = entry["fileId"]?.stringValue, !successful.contains(fileId) else { continue }
            let problem = Self.problem(entry["error"])
            updateFile(fileId, creatingAs: .failed, limits: limits) { file in
                file.state = .failed
                file.problem = problem
            }
        }
        let rejected = result["rejected"]?.arrayValue ?? []
        for entry in rejected {
            // A live id used again is rejected while the file under it carries on: that file's state stands.
            guard let fileId = entry["fileId"]?.stringValue, !successful.contains(fileId) else { continue }
            let problem = Self.problem(entry["error"])
            updateFile(fileId, creatingAs: .rejected, limits: limits) { file in
                file.state = .rejected
                file.problem = problem
            }
        }
        let total = Int(result["rejectedTotal"]?.wholeNumber ?? Int64(rejected.count))
        unlistedRejections = max(0, total - rejected.count)
    }

    private mutating func updateMessage(_ muid: String, at time: Int64, limits: DashboardLimits, _ change: (inout MessageActivity) -> Void) {
        if let position = messages.firstIndex(where: { $0.muid == muid }) {
            change(&messages[position])
            messages[position].time = time
            return
        }
        var message = MessageActivity(muid: muid, messageType: nil, fileIds: [], state: .sent, time: time)
        change(&message)
        messages.append(message)
        if messages.count > limits.messagesPerBatch { messages.removeFirst(messages.count - limits.messagesPerBatch) }
    }

    /// An event without an error code (written by something other than a worker) is shown as such, not given a
    /// code the contract does not have.
    static func problem(_ error: JSONValue?) -> FileActivity.Problem {
        FileActivity.Problem(code: error?["code"]?.stringValue ?? "(no code)", message: error?["message"]?.stringValue ?? "")
    }

    /// The attachment an event carries; its extension and media type follow from its name and mime type, as the
    /// worker derived them.
    static func attachment(_ value: JSONValue?) -> Attachment? {
        guard let value, value.objectValue != nil else { return nil }
        return Attachment(fileId: value["fileId"]?.stringValue ?? "", name: value["name"]?.stringValue ?? "",
                          url: value["url"]?.stringValue ?? "", mimeType: value["mimeType"]?.stringValue ?? "",
                          size: value["size"]?.wholeNumber ?? 0, sha256: value["sha256"]?.stringValue ?? "")
    }
}
