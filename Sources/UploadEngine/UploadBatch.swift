import Foundation

/// One upload batch as a pure state machine: the rules of `docs/contract.md` with no I/O and no clock of its own.
///
/// Every input takes the current time and returns `BatchEffects`: events in the order they happened, and actions
/// (stage, presign, upload, cancel, release, delete) for a driver to perform. Outcomes come back as further inputs
/// tagged with an `AttemptToken`; outcomes of superseded attempts are ignored. `BatchRunner` is the driver used in
/// production; tests feed the batch directly with a virtual clock.
public struct UploadBatch: Sendable {
    public let context: BatchContext
    public let configuration: EngineConfiguration
    /// Files in flight at once; read at every scheduling pass, so a change applies to files started afterwards.
    public internal(set) var concurrency: Int

    /// Files in slot order (slots only grow, and a re-used failed file keeps its place), so a slot is found by
    /// binary search. Rejected files beyond the `UploadResult.rejectedLimit` most recent are dropped and only counted.
    var entries: [FileEntry] = []
    /// Finds files by id without scanning `entries`.
    var directory = FileDirectory()
    /// Rejected files no longer held as entries (beyond the most recent `UploadResult.rejectedLimit`).
    var droppedRejections = 0
    /// Entries visited by intake and scheduling passes: how tests pin down that taking in n files costs O(n).
    var entryVisits = 0
    var nextSlot = 0
    var nextCohort = 0
    /// Files whose attachments went out in a message; a later plan leaves them out.
    var sentFileIds: Set<String> = []
    var random: JitterRandom
    /// The request whose file settled last: `completed` is attributed to it.
    var lastSettledRequestId = ""

    public init(context: BatchContext, configuration: EngineConfiguration, concurrency: Int? = nil, random: JitterRandom = JitterRandom()) {
        self.context = context
        self.configuration = configuration
        self.concurrency = max(1, concurrency ?? configuration.concurrency)
        self.random = random
    }

    public var batchId: String { context.batchId }

    /// In progress while any file is queued or in flight.
    public var status: BatchStatus {
        entries.contains { $0.state.isPending } ? .inProgress : .idle
    }

    /// Files in the batch in any state, rejected ones included (the reference's `getAttachmentCount()`), also those
    /// rejections that are only counted any more.
    public var count: Int { entries.count + droppedRejections }

    /// Room left for new files: capacity is held by every file except rejected ones, that is by the live ones.
    public var remainingCapacity: Int {
        configuration.limits.fileCountMax - directory.live.count
    }

    /// Uploaded attachments in the order their files were added.
    public var attachments: [Attachment] {
        entries.compactMap { $0.state == .uploaded ? $0.attachment : nil }
    }

    /// Uploaded attachments of one kind; always an array, possibly empty.
    public func attachments(ofType kind: MediaKind) -> [Attachment] {
        attachments.filter { $0.type == kind }
    }

    /// The uploaded attachment for a file id; nil when unknown or not uploaded yet.
    public func attachment(fileId: String) -> Attachment? {
        guard let index = directory.live[fileId].flatMap(index(ofSlot:)), entries[index].state == .uploaded else { return nil }
        return entries[index].attachment
    }

    /// The state of the live file with this id (a rejected duplicate never hides the live file).
    public func state(of fileId: String) -> FileState? {
        primaryIndex(of: fileId).map { entries[$0].state }
    }

    /// Uploaded attachments not yet sent in a message, in input order.
    public var unsentAttachments: [Attachment] {
        attachments.filter { !sentFileIds.contains($0.fileId) }
    }

    /// The whole batch's state, as delivered with `completed`: rejections are the most recent
    /// `UploadResult.rejectedLimit` (the batch holds no more), with `rejectedTotal` counting them all.
    public var result: UploadResult {
        var result = UploadResult(batchId: batchId)
        result.rejectedTotal = directory.rejectedCount + droppedRejections
        for entry in entries {
            switch entry.state {
            case .uploaded:
                if let attachment = entry.attachment {
                    result.successful.append(.init(fileId: entry.fileId, attachment: attachment))
                }
            case .rejected:
                if let error = entry.error { result.rejected.append(.init(fileId: entry.fileId, error: WireError(error))) }
            case .failed:
                if let error = entry.error { result.failed.append(.init(fileId: entry.fileId, error: WireError(error))) }
            default:
                break
            }
        }
        return result
    }

    /// The next instant at which `tick(now:)` has work: a stall deadline, the end of a retry backoff, or the end of
    /// a cohort's presign gather window.
    public var nextDeadline: Date? {
        var earliest: Date?
        func consider(_ deadline: Date) {
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        for entry in entries {
            if entry.state == .uploading, let moved = entry.lastMovement {
                consider(moved + configuration.stallTimeout)
            } else if entry.state == .queued, let notBefore = entry.notBefore {
                consider(notBefore)
            }
        }
        // One pass for every cohort's gather deadline, not one pass per waiting file.
        for gathered in cohortGathering().values.compactMap(\.deadline) { consider(gathered) }
        return earliest
    }

    /// Staged bytes the batch holds (queued, in-flight and failed files).
    public var retainedFiles: [StagedFile] {
        entries.compactMap(\.staged)
    }

    /// Whether a request still has files in the batch (its per-call observer is still needed).
    public func hasFiles(from requestId: String) -> Bool {
        entries.contains { $0.requestId == requestId }
    }

    // MARK: - Lookup

    func index(of token: AttemptToken) -> Int? {
        guard let index = index(ofSlot: token.entry), entries[index].generation == token.generation else { return nil }
        return index
    }

    /// The index of the entry in `slot`, by binary search (entries are in slot order).
    func index(ofSlot slot: Int) -> Int? {
        var low = entries.startIndex
        var high = entries.endIndex
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].slot < slot { low = middle + 1 } else { high = middle }
        }
        return low < entries.endIndex && entries[low].slot == slot ? low : nil
    }

    /// The file a control about `fileId` acts on: the non-rejected one if there is one, else the latest.
    func primaryIndex(of fileId: String) -> Int? {
        if let slot = directory.live[fileId] { return index(ofSlot: slot) }
        return directory.rejected[fileId]?.max().flatMap(index(ofSlot:))
    }

    func event(_ entry: FileEntry, _ kind: UploadEvent.Kind) -> UploadEvent {
        UploadEvent(batchId: batchId, requestId: entry.requestId, fileId: entry.fileId, kind: kind)
    }
}
