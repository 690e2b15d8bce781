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

    var entries: [FileEntry] = []
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

    /// Files in the batch in any state, rejected ones included (the reference's `getAttachmentCount()`).
    public var count: Int { entries.count }

    /// Room left for new files: capacity is held by every file except rejected ones.
    public var remainingCapacity: Int {
        configuration.limits.fileCountMax - entries.filter { $0.state.occupiesCapacity }.count
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
        entries.first { $0.fileId == fileId && $0.state == .uploaded }?.attachment
    }

    /// The state of the live file with this id (a rejected duplicate never hides the live file).
    public func state(of fileId: String) -> FileState? {
        primaryIndex(of: fileId).map { entries[$0].state }
    }

    /// Uploaded attachments not yet sent in a message, in input order.
    public var unsentAttachments: [Attachment] {
        attachments.filter { !sentFileIds.contains($0.fileId) }
    }

    /// The whole batch's state, as delivered with `completed`.
    public var result: UploadResult {
        var result = UploadResult(batchId: batchId)
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
        var deadlines: [Date] = []
        for entry in entries {
            if entry.state == .uploading, let moved = entry.lastMovement {
                deadlines.append(moved + configuration.stallTimeout)
            } else if entry.state == .queued, let notBefore = entry.notBefore {
                deadlines.append(notBefore)
            } else if entry.awaitingPresign, let gathered = gatherDeadline(of: entry.cohort) {
                deadlines.append(gathered)
            }
        }
        return deadlines.min()
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
        entries.firstIndex { $0.slot == token.entry && $0.generation == token.generation }
    }

    /// The file a control about `fileId` acts on: the non-rejected one if there is one, else the latest.
    func primaryIndex(of fileId: String) -> Int? {
        entries.firstIndex { $0.fileId == fileId && $0.state != .rejected }
            ?? entries.lastIndex { $0.fileId == fileId }
    }

    func event(_ entry: FileEntry, _ kind: UploadEvent.Kind) -> UploadEvent {
        UploadEvent(batchId: batchId, requestId: entry.requestId, fileId: entry.fileId, kind: kind)
    }
}
