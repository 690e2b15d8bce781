import Foundation
import WireFormat

/// One upload batch as a pure state machine: the rules of `docs/contract.md` with no I/O and no clock of its own.
///
/// Every input takes the current time and returns `BatchEffects`: events in the order they happened, and actions
/// (stage, presign, upload, cancel, release, delete) for a driver to perform. Outcomes come back as further inputs
/// tagged with an `AttemptToken`; outcomes of superseded attempts are ignored. `BatchRunner` is the driver used in
/// production; tests feed the batch directly with a virtual clock.
public struct UploadBatch: Sendable {
    /// The latest job's receiver, sender and parent message: set when the batch is made, and again by the first job
    /// after a `clear`, which starts a fresh batch under the same id.
    public internal(set) var context: BatchContext
    public internal(set) var configuration: EngineConfiguration
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
    /// The batch's messages: what went out, and the send under way.
    var sending: SendState
    var random: JitterRandom
    /// The request whose file settled last: `completed` is attributed to it.
    var lastSettledRequestId = ""
    /// Counts the batch's changes of durable state: a snapshot taken at a version reflects every change up to it.
    public internal(set) var stateVersion = 0
    /// Transitions to idle so far; `completed` events are told apart by it.
    var completions = 0
    /// The batch's last CloudEvents `sequence` number: it continues across owners (a snapshot carries it).
    public internal(set) var eventSequence: UInt64 = 0
    /// The highest jobs-topic offset applied to the batch: a record at or below it is a replay.
    public var appliedThrough: Int64?
    /// The generation the next attempt of any file takes (``takeGeneration()``). Durable, and kept by a `clear`:
    /// generations never go back for a batch id, so neither do the event ids and muids made from them.
    public internal(set) var nextGeneration = 0
    /// Cleared by a `clear` and not taken up by a job since: the batch holds nothing but what a batch re-created
    /// under its id continues — its sequence, generations, state version and applied offset (DESIGN §4.1 *Clear*).
    public internal(set) var isCleared = false
    /// When the batch's durable state last changed (intake, a file settling, a control, a message).
    public internal(set) var updatedAt: Date?
    /// The trace context of each request whose job carried one (its files' `FileItem.trace`), while it has files
    /// here; rebuilt from the files when a snapshot is read.
    var traces: [String: TraceContext] = [:]
    /// Being handed to another owner: nothing new starts (see ``holdForHandover()``). Not durable state: the next
    /// owner starts what is queued.
    public internal(set) var isHeld = false
    /// Files the batch may still move into flight before it must ask the worker's transfer slots again
    /// (``TransferShares``): set by its runner to the slots granted and not yet used. Unlimited without shared slots
    /// (a batch driven on its own, as in tests). Not durable state.
    public internal(set) var slotGrants = Int.max

    public init(context: BatchContext, configuration: EngineConfiguration, concurrency: Int? = nil,
                options: MessageOptions = MessageOptions(), random: JitterRandom = JitterRandom()) {
        self.context = context
        self.configuration = configuration
        self.concurrency = max(1, concurrency ?? configuration.concurrency)
        self.sending = SendState(options: options)
        self.random = random
    }

    public var batchId: String { context.batchId }

    /// In progress while any file is queued or in flight.
    public var status: BatchStatus {
        entries.anyState(\.isPending) ? .inProgress : .idle
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

    /// The multipart uploads the batch's unfinished files will resume: every other upload under the batch's keys is
    /// an orphan (``BatchAction/abortUpload(_:)`` covers those the batch gave up itself).
    public var multipartUploads: [MultipartUpload] { entries.compactMap(\.multipart) }

    /// Uploaded attachments not yet sent in a message, in input order.
    public var unsentAttachments: [Attachment] {
        attachments.filter { !sending.sentFileIds.contains($0.fileId) }
    }

    /// How the batch's uploads are sent: the latest job's `message` options.
    public var messageOptions: MessageOptions { sending.options }

    /// The messages sent so far, in the order they went out.
    public var sentMessages: [SentMessage] { sending.sent }

    /// Whether the caption went out (only the first message carries it).
    public var captionSent: Bool { sending.captionSent }

    /// A send is under way or due.
    public var isSending: Bool { sending.run != nil || sending.requested }

    /// Idle, with no send under way or due: nothing more happens until a new input.
    public var isQuiescent: Bool { status == .idle && !isSending }

    /// Whether anything must resume after a handover: a file pending, or a send under way or due.
    public var hasWorkToResume: Bool { status == .inProgress || isSending }

    /// Nothing under way that a handover would cut off and the next owner repeat: no upload sending and no message
    /// post waiting for its answer. Staging copies and presign calls do not count: the next owner redoes them
    /// without a second upload (and a presign call may wait a while for a transfer slot).
    public var isQuietForHandover: Bool {
        !entries.anyState { $0 == .uploading } && !(sending.run.map { $0.notBefore == nil && !$0.awaitingRecord } ?? false)
    }

    /// Starts nothing new from now on — no queued file, no retry, no message — while what is under way finishes:
    /// the batch is being handed to another owner, which restores it from its snapshot and starts the rest. A file
    /// that completes meanwhile is not uploaded again there.
    ///
    /// An upload that has not sent a byte yet (most often one waiting for a transfer slot) is called off and queued
    /// again with its bytes and URL: waiting for it would only delay the handover, and its next owner may start it
    /// at once. One that is sending goes on, so that no upload under way is cut off and sent again from the start.
    public mutating func holdForHandover() -> BatchEffects {
        isHeld = true
        var effects = BatchEffects()
        for index in entries.indices {
            guard case .uploading(let uploading) = entries[index].phase, uploading.sentBytes == 0 else { continue }
            effects.actions.append(.cancel(entries[index].token))
            entries[index].generation = takeGeneration()
            entries[index].phase = .queued(Queued(retained: Retained(staged: uploading.staged, target: uploading.target)))
        }
        return effects
    }

    /// The whole batch's state, as delivered with `completed`: rejections are the most recent
    /// `UploadResult.rejectedLimit` (the batch holds no more), with `rejectedTotal` counting them all.
    public var result: UploadResult {
        var result = UploadResult(batchId: batchId)
        result.rejectedTotal = directory.rejectedCount + droppedRejections
        for index in entries.indices {
            switch entries[index].state {
            case .uploaded:
                if let attachment = entries[index].attachment {
                    result.successful.append(.init(fileId: entries[index].fileId, attachment: attachment))
                }
            case .rejected:
                if let error = entries[index].error {
                    result.rejected.append(.init(fileId: entries[index].fileId, error: WireError(error)))
                }
            case .failed:
                if let error = entries[index].error {
                    result.failed.append(.init(fileId: entries[index].fileId, error: WireError(error)))
                }
            default:
                break
            }
        }
        return result
    }

    /// The next instant at which `tick(now:)` has work: a stall deadline, the end of a retry backoff (of a file or
    /// a message), or the end of a cohort's presign gather window.
    public var nextDeadline: Date? {
        var earliest: Date?
        func consider(_ deadline: Date) {
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        for index in entries.indices where entries[index].state == .uploading || entries[index].state == .queued {
            switch entries[index].phase {
            case .uploading(let uploading): consider(uploading.lastMovement + configuration.stallTimeout)
            // A held batch starts no retry: its deadlines would fire for nothing, over and over.
            case .queued(let queued): if let notBefore = queued.notBefore, !isHeld { consider(notBefore) }
            default: break
            }
        }
        if let run = sending.run, let notBefore = run.notBefore, !isHeld { consider(notBefore) }
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

    /// A generation no attempt of any file of the batch had before.
    mutating func takeGeneration() -> Int {
        defer { nextGeneration += 1 }
        return nextGeneration
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

    /// The file's fields are read where it lies: a copy of the whole entry retains each of its references.
    func event(at index: Int, _ kind: UploadEvent.Kind) -> UploadEvent {
        UploadEvent(batchId: batchId, requestId: entries[index].requestId, fileId: entries[index].item.fileId, kind: kind,
                    identity: "\(entries[index].generation).\(entries[index].attempt)")
    }

    /// Numbers the events of one transition with the batch's next `sequence` numbers, in order, and gives each the
    /// trace context of its request and the batch's tenant.
    public mutating func stampSequence(_ events: inout [UploadEvent]) {
        for index in events.indices {
            eventSequence += 1
            events[index].sequence = eventSequence
            events[index].tenant = context.tenant
            if !traces.isEmpty { events[index].trace = traces[events[index].requestId] }
        }
    }

    /// The trace context of a request's job, if it carried one.
    public func trace(of requestId: String) -> TraceContext? {
        traces.isEmpty ? nil : traces[requestId]
    }

    /// The trace context of the request an attempt belongs to.
    func trace(of token: AttemptToken) -> TraceContext? {
        guard !traces.isEmpty, let index = index(of: token) else { return nil }
        return traces[entries[index].requestId]
    }
}
