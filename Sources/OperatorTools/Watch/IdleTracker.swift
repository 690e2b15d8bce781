import UploadEngine

/// When the watched batches are idle with their sends done (`attache watch --until-idle`), judged from the changelog:
/// a batch is done when its latest snapshot is quiescent (no file pending, no send under way or due) and the events
/// up to that snapshot's sequence number were seen — or, for a batch already quiescent when the watch began, at once.
/// Pure: the command feeds it snapshots and events in the order it reads them.
public struct IdleTracker: Sendable {
    /// What the latest snapshot of a batch says.
    public struct Snapshot: Sendable, Hashable {
        public var quiescent: Bool
        public var sequence: UInt64
        public var appliedThrough: Int64?
        /// Every file uploaded and, when the batch sends on its own, sent: what exit status 0 means.
        public var succeeded: Bool

        public init(quiescent: Bool, sequence: UInt64, appliedThrough: Int64?, succeeded: Bool) {
            self.quiescent = quiescent
            self.sequence = sequence
            self.appliedThrough = appliedThrough
            self.succeeded = succeeded
        }

        public init(_ batch: UploadBatch) {
            let result = batch.result
            let sentOnItsOwn = batch.messageOptions.send != .auto || batch.unsentAttachments.isEmpty
            self.init(quiescent: batch.isQuiescent, sequence: batch.eventSequence, appliedThrough: batch.appliedThrough,
                      succeeded: result.rejectedTotal == 0 && result.failed.isEmpty && sentOnItsOwn)
        }
    }

    private var snapshots: [String: Snapshot] = [:]
    private var cleared: Set<String> = []
    private var seenSequence: [String: UInt64] = [:]
    private var quiescentAtStart: Set<String> = []
    /// Jobs-topic offsets a batch must have applied before it counts (`submit --watch`: its own job).
    private var required: [String: Int64] = [:]

    public init() {}

    /// A batch is only done once it applied the jobs record at `offset` (the one just produced for it).
    public mutating func require(_ batchId: String, applied offset: Int64) {
        required[batchId] = offset
    }

    /// Takes the latest snapshot of a batch (nil: a tombstone, the batch was cleared or expired). `beforeStart`:
    /// read while catching up with the changelog, before any event.
    public mutating func take(snapshot: Snapshot?, of batchId: String, beforeStart: Bool) {
        guard let snapshot else {
            snapshots[batchId] = nil
            cleared.insert(batchId)
            return
        }
        cleared.remove(batchId)
        snapshots[batchId] = snapshot
        // A snapshot written after the watch began needs its events seen.
        if beforeStart && snapshot.quiescent { quiescentAtStart.insert(batchId) } else { quiescentAtStart.remove(batchId) }
    }

    /// Takes an event's sequence number.
    public mutating func take(eventOf batchId: String, sequence: UInt64?) {
        guard let sequence else { return }
        seenSequence[batchId] = max(seenSequence[batchId] ?? 0, sequence)
    }

    /// Whether the batch is idle with its sends done.
    public func isDone(_ batchId: String) -> Bool {
        if cleared.contains(batchId) { return required[batchId] == nil }
        guard let snapshot = snapshots[batchId], snapshot.quiescent else { return false }
        if let offset = required[batchId], (snapshot.appliedThrough ?? -1) < offset { return false }
        return quiescentAtStart.contains(batchId) || (seenSequence[batchId] ?? 0) >= snapshot.sequence
    }

    /// Whether a done batch ended well (see ``Snapshot/succeeded``); a cleared batch did not.
    public func succeeded(_ batchId: String) -> Bool {
        snapshots[batchId]?.succeeded ?? false
    }
}
