/// One batch as the dashboard knows it from the events topic and the jobs topic: its receiver, files, messages and
/// timeline. Pure: the model folds records into it (`BatchActivity+Events.swift`, `BatchActivity+Jobs.swift`).
public struct BatchActivity: Sendable, Hashable {
    public let batchId: String
    /// From the job record (events do not carry it); nil until a job of the batch was read.
    public var receiverId: String?
    public var receiverType: String?
    public var sender: String?
    /// Whose share of the workers the batch uses: its first job's `tenant`, by default the receiver id.
    public var tenant: String?
    /// Milliseconds since 1970: the first record seen about the batch.
    public var created: Int64
    /// Milliseconds since 1970: the latest record seen about it.
    public var updated: Int64
    /// The kind of the latest timeline entry (`file.uploaded`…).
    public var lastKind = ""
    public private(set) var files: [FileActivity] = []
    private var fileIndex: [String: Int] = [:]
    /// Files past `DashboardLimits.filesPerBatch`, counted only.
    public var untrackedFiles = 0
    /// Rejections the latest `batch.completed` counted (`rejectedTotal`) beyond those it listed.
    public var unlistedRejections = 0
    public internal(set) var messages: [MessageActivity] = []
    public internal(set) var timeline: [TimelineEntry] = []
    /// Timeline entries dropped to keep the newest `DashboardLimits.timelinePerBatch`.
    public var droppedTimeline = 0
    /// How many `batch.completed` events were seen: the batch drained that many times.
    public var drains = 0

    public init(batchId: String, at time: Int64) {
        self.batchId = batchId
        created = time
        updated = time
    }

    /// The file with this id, if it is tracked.
    public func file(_ fileId: String) -> FileActivity? {
        fileIndex[fileId].map { files[$0] }
    }

    /// Changes the file with this id, adding it first (in `state`) when it is new; false when it is new and the
    /// batch tracks as many files as it may.
    @discardableResult
    mutating func updateFile(_ fileId: String, creatingAs state: FileProgressState, limits: DashboardLimits,
                             _ change: (inout FileActivity) -> Void) -> Bool {
        if let position = fileIndex[fileId] {
            change(&files[position])
            return true
        }
        guard files.count < limits.filesPerBatch else {
            untrackedFiles += 1
            return false
        }
        var file = FileActivity(fileId: fileId, state: state)
        change(&file)
        fileIndex[fileId] = files.count
        files.append(file)
        return true
    }

    /// Files by state, unlisted rejections and untracked files included (as rejected and queued).
    public var counts: [FileProgressState: Int] {
        var counts: [FileProgressState: Int] = [:]
        for file in files { counts[file.state, default: 0] += 1 }
        if unlistedRejections > 0 { counts[.rejected, default: 0] += unlistedRejections }
        return counts
    }

    /// In progress while a file is pending or a message is still being retried; idle otherwise (an empty batch too).
    public var isInProgress: Bool {
        files.contains { $0.state.isPending } || messages.contains { $0.state == .retrying }
    }

    /// The error codes the batch shows now: its failed, retrying and rejected files' and its failing messages'.
    public var errorCodes: Set<String> {
        var codes = Set(files.compactMap { $0.state == .uploaded || $0.state == .removed ? nil : $0.problem?.code })
        for message in messages where message.state != .sent { if let code = message.problem?.code { codes.insert(code) } }
        return codes
    }

    /// Bytes sent and bytes in all, over the files whose size is known (removed files left out).
    public var bytes: (loaded: Int64, total: Int64) {
        var loaded: Int64 = 0
        var total: Int64 = 0
        for file in files where file.state != .removed && file.state != .rejected {
            loaded += file.loaded
            total += file.total ?? file.loaded
        }
        return (loaded, total)
    }

    /// Adds a timeline entry in time order, dropping the oldest beyond the limit. Records of the jobs topic and the
    /// events topic are read side by side, so an entry may be older than the last one; it goes before the newer ones.
    mutating func record(_ entry: TimelineEntry, limits: DashboardLimits) {
        let position = timeline.lastIndex { $0.time <= entry.time }.map { $0 + 1 } ?? 0
        timeline.insert(entry, at: position)
        if timeline.count > limits.timelinePerBatch {
            let excess = timeline.count - limits.timelinePerBatch
            timeline.removeFirst(excess)
            droppedTimeline += excess
        }
        if entry.time >= updated || lastKind.isEmpty { lastKind = entry.kind }
        updated = max(updated, entry.time)
        created = min(created, entry.time)
    }

    /// Whether an event with this id is already in the timeline (a repeat after a replay or a handover).
    func hasRecorded(eventId: String) -> Bool {
        timeline.contains { $0.eventId == eventId }
    }
}
