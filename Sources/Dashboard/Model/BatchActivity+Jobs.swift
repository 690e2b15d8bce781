import UploadEngine
import Records

extension BatchActivity {
    /// Folds an upload job of the batch in: what only the job says (receiver, sender, file names, types and sizes),
    /// and its files as queued until their events come. Events and jobs are read from two topics, in no order
    /// between them: a file an event already told about keeps its state, and only learns its name and size.
    mutating func take(job: UploadJob, at time: Int64, limits: DashboardLimits) {
        receiverId = job.receiver.id
        receiverType = job.receiver.type.rawValue
        sender = job.sender ?? sender
        // The job that creates a batch sets its tenant; later ones do not change it (as the worker reads them).
        tenant = tenant ?? job.tenant ?? job.receiver.id
        created = min(created, time)
        for item in job.files {
            let size = item.declaredSize ?? Self.inlineSize(item.source)
            updateFile(item.fileId, creatingAs: .queued, limits: limits) { file in
                if file.name == file.fileId { file.name = item.name }
                if file.mimeType == nil { file.mimeType = item.mimeType }
                if file.total == nil { file.total = size }
            }
        }
        record(TimelineEntry(time: time, kind: "job", detail: "\(job.requestId): \(job.files.count) file\(job.files.count == 1 ? "" : "s")"),
               limits: limits)
    }

    /// Notes a control record of the batch (`retry`, `remove`, `clear`, `send`, `configure`) in the timeline.
    mutating func take(control kind: String, fileId: String?, detail: String, at time: Int64, limits: DashboardLimits) {
        record(TimelineEntry(time: time, kind: "control.\(kind)", fileId: fileId, detail: detail), limits: limits)
    }

    private static func inlineSize(_ source: FileSource) -> Int64? {
        switch source {
        case .data(let bytes): Int64(bytes.count)
        case .oversizedData(let count), .releasedData(let count), .recorded(_, let count): count
        case .url, .path, .malformed: nil
        }
    }
}
