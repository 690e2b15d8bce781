import BatchStore
import FIFOQueueModule
import Foundation
import KafkaIO
import ShortLockModule
import Synchronization
import UploadEngine

/// Durable batch state (DESIGN §4.1): every change of a batch's durable state goes to the compacted changelog as a
/// snapshot — coalesced within `state.flushInterval`, keyed by batch id, produced to the jobs partition's number —
/// and, once delivered, into the local store, which answers for batches no longer in memory.
///
/// "Snapshot before offset": the registry asks ``whenRecorded(batchId:version:_:)`` before letting a record go, and
/// the answer comes only once a snapshot at least as new as the record's change was delivered. A snapshot that
/// cannot be delivered is fatal (`onLoss`), as a lost event is.
///
/// "Events before snapshot": a snapshot is taken only once the events of the batch's transitions so far were handed
/// to the publisher, and produced only once those were delivered. The next owner takes a recorded state as told —
/// it publishes no second `file.uploaded` — so a snapshot ahead of its events would lose them at a handover.
///
/// What is owed is tracked per batch only while something is owed (due, in flight, or waited for), so memory
/// follows the batches being changed, not all batches ever seen. Idle batches out of the registry's memory are kept
/// encoded, the most recently recorded `worker.maxCachedBatches` of them within `state.cacheMax` bytes (``RecentSnapshots``).
final class ChangelogBatchState: BatchDurability {
    private struct State {
        var owed: [String: Owed] = [:]
        /// How many of `owed` are recording: see ``RecordingTally``.
        let recording = RecordingTally()
        /// The batches of `owed` that are due (``Owed/isDue``), each once: a flush visits these, not every batch
        /// whose snapshot is still on its way (tens of thousands in a burst, every `state.flushInterval`).
        var due: [String] = []
        var flushScheduled = false
        /// Whether a timer will look for snapshots put off too long (``scheduleWake()``).
        var wakeScheduled = false
        /// Flushes and releases between taking their work and handing it on (outside the lock): not idle yet.
        var passes = 0
        /// Per partition: the changelog offset the local store is restored up to, and offsets written by this
        /// worker beyond it, so the checkpoint advances only over a contiguous run of what it has applied.
        var checkpoints: [Int32: CheckpointTracker] = [:]
        /// Per partition: the fencing epoch this worker's snapshots carry (``SnapshotRecord``), claimed by its restore.
        var epochs: [Int32: Int64] = [:]
        /// Partitions released and not restored since: what a flush took of them before is not produced.
        var released: Set<Int32> = []
        /// Partitions being written out before they leave (a revoke, a shutdown), by the flushes under way for each:
        /// what the store refuses of them is let go, not retried (``letGoUnstored(_:)``).
        var leaving: [Int32: Int] = [:]
        /// Attempts at re-producing a snapshot the broker acknowledged without an offset, by batch.
        var unplaced: [String: Int] = [:]
        /// Records waiting to be handed to the producer, in the order they were released: when the producer's queue
        /// is full the first waits for room and the rest wait behind it, so a batch's snapshots reach the changelog
        /// in the order of its versions (§4.1 *One owner, in order*).
        var outbox = FIFOQueue<Outgoing>()
        /// The last ``Outgoing/serial`` given.
        var nextSerial: UInt64 = 0
        /// Whether a pass is handing the outbox over, or waiting for queue room to go on.
        var sending = false
        /// Delivered snapshots waiting to be written into the store, and whether a write is under way.
        var stored: [Delivered] = []
        var storing = false
        /// Delivered snapshots the store refused to take: kept, with what waits for them, until a write succeeds
        /// (§4.1 *Store failures*). While there are any, intake takes no records.
        var unstored: [Delivered] = []
        var broken = false
        /// Flushes waiting for deliveries: a loss ends them, since nothing more will be delivered.
        var flushes: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextFlush = 0
        var recent: RecentSnapshots
        /// Snapshots and tombstones taken, by flush, waiting for the events published before them to be delivered;
        /// they are produced in flush order, on `encodeQueue`.
        var gates: [Int: Gate] = [:]
        var nextGate = 0
        var nextRelease = 0

        /// One record of the batch in flight ended: delivered at `version` (and in the store), or nil when a newer
        /// one stands for it. Lets go the waiters it answers; forgets the batch once nothing is owed.
        mutating func finish(_ batchId: String, delivered version: Int?, stamp: Stamp,
                             into ready: inout [@Sendable () -> Void]) {
            guard let entry = owed[batchId] else { return }
            entry.finish(delivered: version, life: stamp.life)
            ready += entry.answered()
            if entry.isDone { owed.removeValue(forKey: batchId) }
        }

        /// Whether a record taken under `stamp` is of a claim of its partition this worker no longer holds: released
        /// since, or claimed again by a later restore. Such a record is neither produced nor stored — its partition's
        /// next restore reads what of it reached the changelog and fences it there (``ChangelogRestore``).
        func isStale(_ stamp: Stamp, partition: Int32) -> Bool {
            released.contains(partition) || epochs[partition] != stamp.claim
        }

        /// Takes a record a pass handed over out of the outbox: the first, unless a record to go again was put in
        /// front of it while it was being handed over.
        mutating func takeOut(_ handed: Outgoing) {
            if let position = outbox.firstPosition(where: { $0.serial == handed.serial }) { outbox.remove(at: position) }
        }

        /// Whether a record of the batch handed over after the one at `order` stands for it: produced again, that one
        /// would land behind the later one and compaction would keep it.
        func isSuperseded(_ batchId: String, order: Int) -> Bool {
            (owed[batchId]?.handed ?? 0) > order
        }

        /// A delivered snapshot of a leaving partition goes unstored (``letGoUnstored(_:)``): its waiters are
        /// answered, and the partition's checkpoint no longer moves, so it stays before what the store lacks.
        mutating func letGo(_ delivery: Delivered, into ready: inout [@Sendable () -> Void]) {
            checkpoints.removeValue(forKey: delivery.partition)
            finish(delivery.batchId, delivered: delivery.version, stamp: delivery.stamp, into: &ready)
        }

        /// Notes that a flush is scheduled; true when none was, so the caller schedules it.
        mutating func scheduleFlushIfNeeded() -> Bool {
            defer { flushScheduled = true }
            return !flushScheduled
        }
    }

    /// Where `load` finds a batch: in the lifecycle, or absent there and looked up in the cache, then the store.
    private enum Held {
        case settled(UploadBatch)
        case absent
        /// Cached, still packed: unpacked once the lock is let go.
        case encoded(RecentSnapshots.Packed)
        case stored
    }

    /// A batch a flush found due, with what decides whether it may wait.
    private struct Due {
        let batchId: String
        let partition: Int32
        let take: Take
        let stamp: Stamp
        /// Nobody waits for its snapshot and its partition is not being written out.
        let mayWait: Bool
        let deferred: ContinuousClock.Instant?
        let takenVersion: Int?
    }

    /// What one flush took: produced once `ready`.
    private struct Gate {
        var ready = false
        let records: [Taken]
    }

    /// What a record was taken under: its partition's claim (the epoch of this worker's restore; nil before one)
    /// and its batch's life (``Owed/life``).
    private struct Stamp: Sendable {
        let claim: Int64?
        let life: Int
    }

    private struct Taken {
        enum Record {
            case snapshot(UploadBatch)
            case tombstone
        }

        let record: Record
        let batchId: String
        let partition: Int32
        let stamp: Stamp
    }

    let topic: String
    let store: BatchStateStore
    private let producer: any RecordProducer
    private let configuration: EngineConfiguration
    private let flushInterval: Duration
    private let maxBytes: Int
    /// Names this worker in the fence records it writes.
    private let writer: String
    /// Writes delivered changes into the store: `store.apply`, unless a test stands in a store that refuses.
    private let storeWrite: StoreWrite

    /// A write of delivered changes, with the checkpoint they take the partition to.
    typealias StoreWrite = @Sendable (_ changes: [BatchChange], _ partition: Int32, _ checkpoint: Int64) throws -> Void
    /// Runs its argument once every event published so far was delivered, or once one was lost (the publisher's
    /// barrier, ``KafkaEventPublisher/whenSettled(_:)``).
    private let eventsDelivered: @Sendable (@escaping @Sendable (EventsOutcome) -> Void) -> Void
    private let logger: Logger
    private let onLoss: @Sendable (String) -> Void
    /// Counts deliveries and store failures.
    private let metrics: WorkerMetrics
    private let state: ShortLock<State>
    /// Whether delivered snapshots are kept in ``RecentSnapshots`` (`worker.maxCachedBatches` above zero).
    private let caching: Bool
    /// Store writes run here, one at a time, off the producer's delivery thread and the cooperative pool.
    private let storeQueue = DispatchQueue(label: "attache.batch-store")
    /// Told when the store starts or stops refusing writes.
    private let storeObserver = Mutex<(@Sendable (Bool) -> Void)?>(nil)
    /// How long a refused store write waits before it is tried again; doubles up to `storeRetryCap`.
    private let storeRetryStart: Duration
    private let storeRetryCap: Duration
    /// Snapshots are encoded and produced here once their events are delivered, in flush order.
    private let encodeQueue = DispatchQueue(label: "attache.batch-snapshots")
    /// Held through a flush, from taking what is due to numbering its gate. Flushes run from timers and from
    /// revokes at once: one that took a batch's change first but numbered its gate second released the newer
    /// snapshot ahead of the older, and compaction kept the older (§4.1 *One owner, in order*); a runner read by two
    /// flushes could likewise give the earlier flush the newer state.
    private let flushing = Mutex<Void>(())

    /// How long a batch still at work may go without a snapshot when nothing of it settled since and no record waits
    /// for one. A change that only takes a record in, or moves a file between pending phases, needs none for the
    /// record's sake — the record stays uncommitted until its batch settles, and a new owner replays it — so a job
    /// that finishes within this time writes one snapshot, when it settles, not one at intake and one at the end.
    /// Zero takes every change at the next flush.
    private let inProgressDelay: Duration

    /// The version a tombstone counts as delivering: none. Its delivery answers no waiter by version — a batch
    /// made again under the id meanwhile starts its versions afresh, and waits for its own snapshot — only by
    /// leaving nothing in flight.
    private static let tombstoneVersion = -1

    /// A snapshot or tombstone on its way to the producer.
    private struct Outgoing: Sendable {
        let record: KafkaProducerRecord
        var partition: Int32 { record.partition ?? -1 }
        let batchId: String
        let version: Int
        let change: BatchChange
        let stamp: Stamp
        /// Names it in the outbox: the pass that handed it over takes out this record, not whatever is first by then
        /// (a record to produce again may have been put in front of it meanwhile).
        let serial: UInt64
        /// For a record produced again, its place when it was first handed over: a later record of its batch handed
        /// since stands for it, and it is not produced again behind that one.
        let handedBefore: Int?
        /// Its place among the batch's records handed to the producer (``Owed/handed``), set when handed over.
        var order = 0
    }

    /// A delivered snapshot on its way into the store.
    private struct Delivered: Sendable {
        let batchId: String
        let partition: Int32
        let version: Int
        let change: BatchChange
        let stamp: Stamp
    }

    init(topic: String, store: BatchStateStore, producer: any RecordProducer, configuration: EngineConfiguration,
         flushInterval: Duration, maxBytes: Int, cachedBatches: Int = 0, cachedBytes: Int = .max,
         writer: String = "", storeWrite: StoreWrite? = nil, storeRetryStart: Duration = .milliseconds(100),
         storeRetryCap: Duration = .seconds(5), inProgressDelay: Duration = .seconds(1),
         eventsDelivered: @escaping @Sendable (@escaping @Sendable (EventsOutcome) -> Void) -> Void,
         logger: Logger, metrics: WorkerMetrics = WorkerMetrics(), onLoss: @escaping @Sendable (String) -> Void) {
        self.state = ShortLock(State(recent: RecentSnapshots(limit: cachedBatches, byteLimit: cachedBytes)))
        self.caching = cachedBatches > 0
        self.metrics = metrics
        self.topic = topic
        self.store = store
        self.producer = producer
        self.configuration = configuration
        self.flushInterval = flushInterval
        self.maxBytes = maxBytes
        self.writer = writer
        self.storeRetryStart = storeRetryStart
        self.storeRetryCap = storeRetryCap
        self.inProgressDelay = inProgressDelay
        self.storeWrite = storeWrite ?? { [store] changes, partition, checkpoint in
            try store.apply(changes, partition: partition, checkpoint: checkpoint)
        }
        self.eventsDelivered = eventsDelivered
        self.logger = logger
        self.onLoss = onLoss
    }

    var keepsBatches: Bool { true }

    var isBlocked: Bool { state.withLock { !$0.unstored.isEmpty } }

    /// Sets what to call when the store starts or stops refusing writes (with whether it refuses now).
    func onStoreBlocked(_ observer: @escaping @Sendable (Bool) -> Void) {
        storeObserver.withLock { $0 = observer }
    }

    // MARK: - BatchDurability

    /// Idle batches held encoded in memory.
    var cachedCount: Int { state.withLock { $0.recent.count } }

    /// Batches the table of what is owed has room for without growing.
    var owedCapacity: Int { state.withLock { $0.owed.capacity } }

    /// Batches still at work whose snapshot a flush put off (``inProgressDelay``).
    var putOffCount: Int { state.withLock { $0.owed.values.count { $0.deferred != nil && !$0.stage.isDue } } }

    /// Batches with a change not yet delivered to the changelog: owed a snapshot, or with one on its way.
    var pendingCount: Int { state.withLock { $0.recording.count } }

    /// ``pendingCount`` counted afresh, walking the table: what the tally must always agree with (for tests).
    var recountedPendingCount: Int { state.withLock { $0.owed.values.count(where: \.isRecording) } }

    func load(batchId: String, partition: Int32) -> UploadBatch? {
        do {
            let held = state.withLock { state -> Held in
                if let owed = state.owed[batchId], owed.partition == partition {
                    switch owed.stage {
                    case .settling(let settled, _): return .settled(settled.batch)
                    case .expiring: return .absent
                    case .live, .recorded: break
                    }
                }
                return state.recent.take(batchId, partition: partition).map(Held.encoded) ?? .stored
            }
            let snapshot: Data
            switch held {
            case .settled(let batch): return batch
            case .absent: return nil
            case .encoded(let cached): snapshot = cached.snapshot
            case .stored:
                guard let row = try store.batch(partition: partition, batchId: batchId) else { return nil }
                snapshot = row.snapshot
            }
            return try BatchSnapshot.decode(snapshot, configuration: configuration).batch
        } catch {
            // A row that cannot be read is a cache miss: the batch starts afresh, as it would without the store.
            metrics.storeFailed(.read)
            logger.error("a stored batch could not be read; starting it afresh", ["batchId": batchId, "error": "\(error)"])
            return nil
        }
    }

    func changed(batchId: String, partition: Int32, runner: BatchRunner) {
        owe(batchId, partition: partition, .live(runner, due: true))
    }

    func settled(batchId: String, partition: Int32, batch: UploadBatch) {
        owe(batchId, partition: partition, .settling(SettledBatch(batch), due: true))
    }

    func forget(batchId: String, partition: Int32) {
        owe(batchId, partition: partition, .expiring(due: true))
    }

    /// Forgets a batch the store's sweep read as idle past its time, unless it changed since: something of it owed
    /// or on its way, or a newer row stored. A job applied to it at intake since the sweep's read (the
    /// settled-at-intake path holds no session for the sweep to see) would otherwise be overwritten by the
    /// tombstone, its record committed against it.
    func forgetIdle(_ row: StoredBatch) {
        let store = self.store
        owe(row.batchId, partition: row.partition, .expiring(due: true)) {
            // Nothing owed, so no write of the batch is under way, and none starts while the lock is held.
            (try? store.batch(partition: row.partition, batchId: row.batchId))??.offset == row.offset
        }
    }

    func whenRecorded(batchId: String, version: Int, _ action: @escaping @Sendable () -> Void) {
        let (now, schedule) = state.withLock { state -> (Bool, Bool) in
            guard !state.broken else { return (false, false) }
            guard let owed = state.owed[batchId], owed.isRecording else { return (true, false) }
            if owed.delivered >= version && !owed.stage.isDue && owed.deferred == nil { return (true, false) }
            // In place: a copy taken out and written back would copy the waiters on every append.
            state.owed[batchId]!.waiters.append((version, action))
            // A snapshot put off because nobody waited for it is due now that someone does.
            guard state.owed[batchId]!.wake() else { return (false, false) }
            state.due.append(batchId)
            return (false, state.scheduleFlushIfNeeded())
        }
        if now { action() }
        if schedule { scheduleFlush() }
    }

    /// Writes what is owed for `partitions` now and waits until it is delivered: a revoke hands a partition over
    /// only after its batches' last snapshots are in the changelog. After a loss (fatal) it waits for nothing: the
    /// worker is stopping, and its records stay uncommitted.
    func flush(partitions: Set<Int32>) async {
        state.withLock { state in
            for partition in partitions { state.leaving[partition, default: 0] += 1 }
        }
        defer {
            state.withLock { state in
                for partition in partitions {
                    state.leaving[partition]? -= 1
                    if state.leaving[partition] == 0 { state.leaving.removeValue(forKey: partition) }
                }
            }
        }
        letGoUnstored(partitions)
        state.withLock { state in
            // Ids first: changing the table while iterating it would copy all of it.
            let putOff = state.owed.compactMap { partitions.contains($0.value.partition) && $0.value.deferred != nil ? $0.key : nil }
            for batchId in putOff where state.owed[batchId]!.wake() { state.due.append(batchId) }
        }
        flushNow(forcing: partitions)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = state.withLock { state -> (id: Int, pending: [String])? in
                guard !state.broken else { return nil }
                let pending = state.owed.filter { partitions.contains($0.value.partition) && !$0.value.isDone }.map(\.key)
                guard !pending.isEmpty else { return nil }
                state.nextFlush += 1
                state.flushes[state.nextFlush] = continuation
                return (state.nextFlush, pending)
            }
            guard let (id, pending) = started else { return continuation.resume() }
            let remaining = Atomic<Int>(pending.count)
            for batchId in pending {
                // No version is that new: the wait ends when nothing is owed for the batch any more.
                whenRecorded(batchId: batchId, version: .max - 1) { [self] in
                    guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
                    state.withLock { $0.flushes.removeValue(forKey: id) }?.resume()
                }
            }
        }
    }

    // MARK: - Checkpoints

    /// The partition's store is restored up to `offset` (the changelog's end when its restore read it), and its
    /// snapshots from now on carry `epoch`.
    func restored(partition: Int32, through offset: Int64, epoch: Int64) {
        state.withLock { state in
            state.checkpoints[partition] = CheckpointTracker(next: offset)
            state.epochs[partition] = epoch
            state.released.remove(partition)
            state.leaving.removeValue(forKey: partition)
        }
    }

    /// The epoch this worker's snapshots of the partition carry; nil before its restore claimed one.
    func currentEpoch(partition: Int32) -> Int64? { state.withLock { $0.epochs[partition] } }

    /// Writes a fence record to the partition and answers its offset, which makes this worker's epoch for the
    /// partition (``SnapshotRecord/epoch(fenceOffset:)``): above every earlier owner's.
    func writeFence(partition: Int32) async throws(KafkaError) -> Int64 {
        let record = SnapshotRecord.fence(topic: topic, partition: partition, writer: writer)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<KafkaDeliveryReport, KafkaError>, Never>) in
            Task { await produceAnswering(record, continuation) }
        }
        let report = try outcome.get()
        guard report.offset >= 0 else { throw KafkaError(.unexpectedResponse, "the fence record was acknowledged without an offset") }
        return report.offset
    }

    private func produceAnswering(_ record: KafkaProducerRecord,
                                  _ continuation: CheckedContinuation<Result<KafkaDeliveryReport, KafkaError>, Never>) async {
        while true {
            do {
                try producer.produce(record) { continuation.resume(returning: $0) }
                return
            } catch where error.code == .queueFull {
                await producer.waitForQueueSpace()
            } catch {
                continuation.resume(returning: .failure(error))
                return
            }
        }
    }

    /// The partition left this worker: its own writes no longer move its checkpoint.
    func released(partition: Int32) {
        state.withLock { state in
            state.checkpoints.removeValue(forKey: partition)
            state.epochs.removeValue(forKey: partition)
            state.released.insert(partition)
            state.recent.removePartition(partition)
            // Its next owner may change them: a later assignment reads them back from the changelog instead. A revoke
            // flushed them first; a lost partition's are the new owner's to redo.
            let leaving = state.owed.compactMap { $0.value.partition == partition ? $0.key : nil }
            for batchId in leaving {
                state.owed[batchId]!.release()
                if state.owed[batchId]!.isDone { state.owed.removeValue(forKey: batchId) }
            }
        }
    }

    // MARK: - Flushing

    /// The one place a batch's stage is set from outside a flush or a delivery. With `unchanged`, only when nothing
    /// of the batch is owed or on its way and `unchanged` holds, both looked at under the lock the change takes.
    private func owe(_ batchId: String, partition: Int32, _ stage: Stage, unchanged: (() -> Bool)? = nil) {
        let schedule = state.withLock { state -> Bool in
            // One look-up of the batch id, under the lock every change of every batch takes.
            let entry: Owed
            if let known = state.owed[batchId] {
                if unchanged != nil { return false }
                entry = known
            } else {
                if let unchanged, !unchanged() { return false }
                entry = Owed(partition: partition, tally: state.recording)
                state.owed[batchId] = entry
            }
            if case .expiring = stage { state.recent.remove(batchId, partition: partition) }
            if entry.enter(stage, partition: partition) {
                state.due.append(batchId)
            }
            return state.scheduleFlushIfNeeded()
        }
        if schedule { scheduleFlush() }
    }

    private func scheduleFlush() {
        let interval = flushInterval
        Task { [self] in
            if interval > .zero { try? await Task.sleep(for: interval) }
            flushNow()
        }
    }

    /// Takes a snapshot (or tombstone) of every batch owed one, to be produced once the events published so far are
    /// delivered. Snapshots are taken now, so one record carries all of a batch's changes since its last flush; a
    /// batch whose latest events are still on their way to the publisher waits for the next flush, and one still at
    /// work with nothing settled and nobody waiting may wait up to `inProgressDelay` — unless its partition is
    /// `forcing` (a revoke or a shutdown writes everything).
    private func flushNow(forcing: Set<Int32> = []) {
        flushing.withLock { _ in flushPass(forcing: forcing) }
    }

    /// One flush, under `flushing`: what it takes, the snapshots it reads off runners and its gate's place in the
    /// release order all follow the flush before it.
    private func flushPass(forcing: Set<Int32>) {
        let due = state.withLock { state -> [Due] in
            state.flushScheduled = false
            state.passes += 1
            // After a loss nothing more is produced: the worker is stopping, and its records stay uncommitted.
            guard !state.broken else { return [] }
            let ids = state.due
            state.due = []
            var due: [Due] = []
            due.reserveCapacity(ids.count)
            for batchId in ids {
                guard let owed = state.owed[batchId] else { continue }
                let deferred = owed.deferred
                guard let taken = owed.take() else { continue }
                due.append(Due(batchId: batchId, partition: owed.partition, take: taken,
                               stamp: Stamp(claim: state.epochs[owed.partition], life: owed.life),
                               mayWait: owed.waiters.isEmpty && !forcing.contains(owed.partition), deferred: deferred,
                               takenVersion: owed.takenVersion))
            }
            return due
        }
        var taken: [Taken] = []
        taken.reserveCapacity(due.count)
        var unready: [(batchId: String, runner: BatchRunner)] = []
        var putOff: [(batchId: String, runner: BatchRunner, since: ContinuousClock.Instant)] = []
        var takenVersions: [(batchId: String, version: Int)] = []
        let now = ContinuousClock.now
        for entry in due {
            let (batchId, partition, stamp) = (entry.batchId, entry.partition, entry.stamp)
            switch entry.take {
            case .runner(let runner):
                guard let recordable = runner.recordable else {
                    unready.append((batchId, runner))
                    continue
                }
                let batch = recordable.batch
                if entry.mayWait, inProgressDelay > .zero, batch.hasWorkToResume,
                   recordable.newsVersion <= entry.takenVersion ?? -1 {
                    let since = entry.deferred ?? now
                    if now - since < inProgressDelay {
                        putOff.append((batchId, runner, since))
                        continue
                    }
                }
                takenVersions.append((batchId, batch.stateVersion))
                taken.append(Taken(record: .snapshot(batch), batchId: batchId, partition: partition, stamp: stamp))
            case .value(let batch):
                taken.append(Taken(record: .snapshot(batch), batchId: batchId, partition: partition, stamp: stamp))
            case .tombstone:
                taken.append(Taken(record: .tombstone, batchId: batchId, partition: partition, stamp: stamp))
            }
        }
        if !unready.isEmpty || !putOff.isEmpty { owe(again: unready, putOff: putOff) }
        guard !taken.isEmpty else {
            state.withLock { $0.passes -= 1 }
            return
        }
        let gate = state.withLock { state -> Int in
            defer { state.nextGate += 1; state.passes -= 1 }
            for (batchId, version) in takenVersions { state.owed[batchId]?.takenVersion = version }
            state.gates[state.nextGate] = Gate(records: taken)
            return state.nextGate
        }
        eventsDelivered { [self] outcome in
            // Events lost before these snapshots: they never go out (the next owner would take them as told and
            // never publish the lost events), and whatever waits for them ends now — the worker is stopping.
            guard outcome == .delivered else { return lose("an event published before a batch snapshot was lost") }
            state.withLock { $0.gates[gate]?.ready = true }
            // Told on the producer's delivery thread: encoding a flush's snapshots there would hold up every
            // delivery report behind it.
            encodeQueue.async { [self] in releaseGates() }
        }
    }

    /// Batches a flush could not take yet, or put off, are owed again (unless a tombstone took their place meanwhile).
    private func owe(again unready: [(batchId: String, runner: BatchRunner)],
                     putOff: [(batchId: String, runner: BatchRunner, since: ContinuousClock.Instant)] = []) {
        let (schedule, wake) = state.withLock { state -> (Bool, Bool) in
            for (batchId, runner) in unready where state.owed[batchId]!.untake(runner) {
                state.due.append(batchId)
            }
            for (batchId, _, since) in putOff { state.owed[batchId]!.putOff(since: since) }
            let wake = !putOff.isEmpty && !state.wakeScheduled
            if wake { state.wakeScheduled = true }
            return (!unready.isEmpty && state.scheduleFlushIfNeeded(), wake)
        }
        if schedule { scheduleFlush() }
        if wake { scheduleWake() }
    }

    /// Makes the snapshots put off longer than `inProgressDelay` due, once that much time has gone by; again while
    /// any are put off. One timer for all of them, looking at the table once a delay.
    private func scheduleWake() {
        let delay = inProgressDelay
        Task { [self] in
            try? await Task.sleep(for: delay)
            let now = ContinuousClock.now
            let (schedule, again) = state.withLock { state -> (Bool, Bool) in
                var expired: [String] = [], waiting = false
                for (batchId, owed) in state.owed {
                    guard let since = owed.deferred else { continue }
                    if now - since >= delay {
                        expired.append(batchId)
                    } else if !owed.stage.isDue {
                        waiting = true
                    }
                }
                // Changed after the look: changing the table while iterating it would copy all of it.
                var woken = false
                for batchId in expired where state.owed[batchId]!.wake() {
                    state.due.append(batchId)
                    woken = true
                }
                state.wakeScheduled = waiting
                return (woken && state.scheduleFlushIfNeeded(), waiting)
            }
            if schedule { scheduleFlush() }
            if again { scheduleWake() }
        }
    }

    /// Produces the flushes whose events were delivered, in flush order: a later snapshot of a batch never goes out
    /// before an earlier one. Runs on `encodeQueue` only, so one pass at a time.
    private func releaseGates() {
        while true {
            var ready: [@Sendable () -> Void] = []
            // The gate's records are taken out of the table and kept in place, and read where they lie below: each
            // copy of a record copies the batch value inside it, a dozen references retained and released.
            let records = state.withLock { state -> [Taken]? in
                guard state.gates[state.nextRelease]?.ready == true,
                      var records = state.gates.removeValue(forKey: state.nextRelease)?.records else { return nil }
                state.nextRelease += 1
                state.passes += 1
                // Nothing is produced for a claim this worker no longer holds.
                records.removeAll { taken in
                    guard state.isStale(taken.stamp, partition: taken.partition) else { return false }
                    state.finish(taken.batchId, delivered: nil, stamp: taken.stamp, into: &ready)
                    return true
                }
                return records
            }
            ready.forEach { $0() }
            guard let records else { return }
            for index in records.indices {
                let (batchId, partition, stamp) = (records[index].batchId, records[index].partition, records[index].stamp)
                switch records[index].record {
                case .snapshot(let batch):
                    write(batch, batchId: batchId, partition: partition, stamp: stamp)
                case .tombstone:
                    let record = SnapshotRecord.tombstone(topic: topic, batchId: batchId, partition: partition,
                                                          generation: stamp.claim ?? 0)
                    produce(record, batchId: batchId, version: Self.tombstoneVersion,
                            change: .tombstone(batchId: batchId, offset: 0), stamp: stamp)
                }
            }
            state.withLock { $0.passes -= 1 }
        }
    }

    private func write(_ batch: UploadBatch, batchId: String, partition: Int32, stamp: Stamp) {
        let generation = stamp.claim ?? 0
        guard let snapshot = BatchSnapshot.encode(batch, writerGeneration: generation, maxBytes: maxBytes) else {
            lose("the snapshot of batch \(batchId) does not fit events.maxBytes (\(maxBytes) bytes)")
            return
        }
        let updatedAt = Int64(((batch.updatedAt ?? Date()).timeIntervalSince1970 * 1000).rounded())
        // One buffer, shared by the record and the store's row.
        let record = SnapshotRecord.snapshot(topic: topic, batchId: batchId, partition: partition, bytes: snapshot,
                                             generation: generation, pending: batch.hasWorkToResume, updatedAt: updatedAt)
        produce(record, batchId: batchId, version: batch.stateVersion,
                change: BatchChange(batchId: batchId, snapshot: snapshot, offset: 0, pending: batch.hasWorkToResume,
                                    updatedAt: updatedAt), stamp: stamp)
    }

    /// Puts a record in the outbox: behind the others, or — `again`, a record produced before that must go out
    /// again — in front of them, where its batch's later records cannot pass it.
    private func produce(_ record: KafkaProducerRecord, batchId: String, version: Int, change: BatchChange, stamp: Stamp,
                         again handedBefore: Int? = nil) {
        let start = state.withLock { state -> Bool in
            state.nextSerial += 1
            let outgoing = Outgoing(record: record, batchId: batchId, version: version, change: change, stamp: stamp,
                                    serial: state.nextSerial, handedBefore: handedBefore)
            if handedBefore != nil { state.outbox.prepend(outgoing) } else { state.outbox.append(outgoing) }
            defer { state.sending = true }
            return !state.sending
        }
        if start { sendOutbox() }
    }

    /// Hands the outbox to the producer in order, until it is empty or the producer's queue is full; then waits for
    /// room and goes on. One pass at a time (``State/sending``).
    private func sendOutbox() {
        while true {
            var ready: [@Sendable () -> Void] = []
            let next = state.withLock { state -> Outgoing? in
                // What waited for room while its claim ended is not produced (see releaseGates), nor a record to go
                // again for which a later one of its batch was handed over since it was put back (see `delivered`:
                // the later one may have gone out between that look and now).
                while let first = state.outbox.first,
                      state.isStale(first.stamp, partition: first.partition)
                        || first.handedBefore.map({ state.isSuperseded(first.batchId, order: $0) }) == true {
                    _ = state.outbox.popFirst()
                    state.finish(first.batchId, delivered: nil, stamp: first.stamp, into: &ready)
                }
                guard var next = state.outbox.first else {
                    state.sending = false
                    return nil
                }
                next.order = (state.owed[next.batchId]?.handed ?? 0) + 1
                return next
            }
            ready.forEach { $0() }
            guard let next else { return }
            do {
                try producer.produce(next.record) { [self] outcome in delivered(outcome, next) }
            } catch let error where error.code == .queueFull {
                // Keeps its place: nothing behind it goes first.
                Task { [self] in
                    await producer.waitForQueueSpace()
                    sendOutbox()
                }
                return
            } catch {
                state.withLock { $0.takeOut(next) }
                lose("a snapshot of batch \(next.batchId) was refused: \(error)")
                continue
            }
            state.withLock { state in
                state.takeOut(next)
                state.owed[next.batchId]?.handed = next.order
            }
        }
    }

    private func delivered(_ outcome: Result<KafkaDeliveryReport, KafkaError>, _ sent: Outgoing) {
        let batchId = sent.batchId
        let report: KafkaDeliveryReport
        switch outcome {
        case .failure(let error):
            lose("a snapshot of batch \(batchId) could not be delivered: \(error)")
            return
        case .success(let delivered):
            report = delivered
        }
        guard report.offset >= 0 else {
            // Acknowledged without being placed (see KafkaEventPublisher): produce it again, a bounded number of
            // times — unless a later record of the batch went out after it, which then stands for it. (One being
            // handed over right now is not counted yet: the outbox pass asks again before producing it.)
            let attempts = state.withLock { state -> Int? in
                if state.isSuperseded(batchId, order: sent.order) { return nil }
                state.unplaced[batchId, default: 0] += 1
                return state.unplaced[batchId] ?? 0
            }
            guard let attempts else {
                superseded(sent)
                return
            }
            guard attempts <= 5 else {
                lose("a snapshot of batch \(batchId) was acknowledged without an offset \(attempts) times")
                return
            }
            produce(sent.record, batchId: batchId, version: sent.version, change: sent.change, stamp: sent.stamp, again: sent.order)
            return
        }
        let version = sent.version
        var change = sent.change
        change.offset = report.offset
        metrics.countSnapshotDelivered()
        let delivery = Delivered(batchId: batchId, partition: report.partition, version: version, change: change,
                                 stamp: sent.stamp)
        var ready: [@Sendable () -> Void] = []
        let drain = state.withLock { state -> Bool in
            state.unplaced.removeValue(forKey: batchId)
            // A partition being written out before it leaves, while the store refuses: let go at once rather than
            // after the store's next retry, up to `storeRetryCap` later.
            if state.leaving[report.partition] != nil, !state.unstored.isEmpty, !state.isStale(sent.stamp, partition: report.partition) {
                state.letGo(delivery, into: &ready)
                return false
            }
            state.stored.append(delivery)
            defer { state.storing = true }
            return !state.storing
        }
        ready.forEach { $0() }
        if drain { storeQueue.async { [self] in storeDelivered() } }
    }

    /// Whether nothing is under way that goes on by itself: no flush scheduled, no flush released and not yet
    /// produced, nothing waiting in the outbox unless `queueFull`, no delivered snapshot on its way into the store,
    /// and none refused unless `storeRefuses`. What a step-by-step test waits for between its steps.
    func isIdle(queueFull: Bool, storeRefuses: Bool) -> Bool {
        state.withLock { state in
            !state.flushScheduled && state.passes == 0 && !state.gates.values.contains(where: \.ready) && (state.outbox.isEmpty || queueFull)
                && state.stored.isEmpty && (state.unstored.isEmpty ? !state.storing : storeRefuses)
        }
    }

    /// Returns once every snapshot delivered so far is in the store and its waiting records were let go.
    func storeWritesDone() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            storeQueue.async { continuation.resume() }
        }
    }

    /// Writes delivered snapshots into the local store, all that arrived meanwhile in one transaction per
    /// partition (a transaction per snapshot would cost more than the rest of a small job), then lets the records
    /// waiting for them go: a batch leaves memory only once the store can give it back.
    ///
    /// A write the store refuses (a full disk, an I/O error) is not given up: its snapshots are kept, with the
    /// records and batches waiting for them, and written again after a growing pause; meanwhile intake takes no
    /// records and `/readyz` fails (§4.1 *Store failures*). Nothing is let go that the store could not give back.
    private func storeDelivered(retry delay: Duration? = nil) {
        let delay = delay ?? storeRetryStart
        while true {
            var stale: [@Sendable () -> Void] = []
            let (batch, retrying, took) = state.withLock { state -> ([Delivered], Bool, Bool) in
                // Refused ones first, in the order they were delivered.
                let retrying = !state.unstored.isEmpty
                defer { state.stored = []; state.unstored = [] }
                if state.stored.isEmpty && !retrying { state.storing = false }
                // A claim's records delivered after it ended stay out of the store, and its checkpoint stays before
                // them: the restore that claimed the partition since did not read them, and the next one decides
                // whether they stand (an earlier epoch than the batch's newest is fenced).
                var current: [Delivered] = []
                for delivery in state.unstored + state.stored {
                    if state.isStale(delivery.stamp, partition: delivery.partition) {
                        state.finish(delivery.batchId, delivered: nil, stamp: delivery.stamp, into: &stale)
                    } else {
                        current.append(delivery)
                    }
                }
                return (current, retrying, !state.unstored.isEmpty || !state.stored.isEmpty)
            }
            stale.forEach { $0() }
            guard took else { return }
            guard !batch.isEmpty else {
                if retrying { reportStoreBlocked() }
                continue
            }
            var refused: [Delivered] = []
            var written: [Delivered] = []
            for (partition, deliveries) in Dictionary(grouping: batch, by: \.partition) {
                do {
                    let kept = try state.withLock({ $0.checkpoints[partition]?.next }) ?? store.checkpoint(partition: partition) ?? 0
                    let checkpoint = state.withLock { state -> Int64 in
                        // Taken out and put back once: advanced in place through the table, it allocated per record.
                        guard var tracker = state.checkpoints.removeValue(forKey: partition) else { return kept }
                        defer { state.checkpoints[partition] = tracker }
                        var next = kept
                        for delivery in deliveries { next = tracker.advance(past: delivery.change.offset) }
                        return next
                    }
                    try storeWrite(deliveries.map(\.change), partition, checkpoint)
                    written += deliveries
                } catch {
                    metrics.storeFailed(.write)
                    logger.error("the local batch store refused snapshots; intake waits until it takes them",
                                 ["partition": String(partition), "error": "\(error)", "retryIn": "\(delay)"])
                    refused += deliveries
                }
            }
            // Packed before the lock is taken: see RecentSnapshots.Packed.
            let packed = written.map { caching ? $0.change.snapshot.map(RecentSnapshots.Packed.init) : nil }
            let (ready, refusing) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                var ready: [@Sendable () -> Void] = []
                for (delivery, packed) in zip(written, packed) {
                    if let packed {
                        state.recent.put(packed, batchId: delivery.batchId, partition: delivery.partition)
                    } else {
                        state.recent.remove(delivery.batchId, partition: delivery.partition)
                    }
                    state.finish(delivery.batchId, delivered: delivery.version, stamp: delivery.stamp, into: &ready)
                }
                // What a partition being written out before it leaves could not store is let go: kept, it would hold
                // the handover up until the store recovers.
                var kept: [Delivered] = []
                for delivery in refused {
                    if state.leaving[delivery.partition] != nil {
                        state.letGo(delivery, into: &ready)
                    } else {
                        kept.append(delivery)
                    }
                }
                state.unstored = kept.sorted { $0.change.offset < $1.change.offset }
                // A dictionary never gives back the capacity a burst grew it to: tens of thousands of batches owed
                // at once at full intake left some 90 bytes per idle batch behind (intake bench, 264 → 348).
                if state.owed.capacity > 1024, state.owed.count < state.owed.capacity / 8 {
                    state.owed = Dictionary(uniqueKeysWithValues: state.owed.map { ($0.key, $0.value) })
                }
                return (ready, !kept.isEmpty)
            }
            ready.forEach { $0() }
            if refusing {
                if !retrying { reportStoreBlocked() }
                storeQueue.asyncAfter(deadline: .now() + delay.timeInterval) { [self] in
                    storeDelivered(retry: min(delay * 2, storeRetryCap))
                }
                return
            }
            if retrying {
                logger.info("the local batch store takes snapshots again; intake goes on")
                reportStoreBlocked()
            }
        }
    }

    /// Snapshots of leaving partitions that the store refused are let go unwritten: the changelog has them, and the
    /// store's checkpoint of the partition stayed before them, so whoever restores it next reads them there. Waiting
    /// for the store would hold the handover up for as long as the store refuses.
    private func letGoUnstored(_ partitions: Set<Int32>) {
        var ready: [@Sendable () -> Void] = []
        let unblocked = state.withLock { state -> Bool in
            let leaving = state.unstored.filter { partitions.contains($0.partition) }
            guard !leaving.isEmpty else { return false }
            state.unstored.removeAll { partitions.contains($0.partition) }
            for delivery in leaving { state.letGo(delivery, into: &ready) }
            return state.unstored.isEmpty
        }
        ready.forEach { $0() }
        if unblocked { reportStoreBlocked() }
    }

    /// Tells the observer whether the store refuses now, as the state says when it is told, one report at a time:
    /// reports of two threads' changes (a refused write, a leaving partition's let go) land in either order, and
    /// each saying what it saw would leave the observer with the older answer.
    private func reportStoreBlocked() {
        storeObserver.withLock { observer in
            observer?(state.withLock { !$0.unstored.isEmpty })
        }
    }

    /// A snapshot acknowledged without a place, for which a newer one of its batch went out: that one stands for it.
    private func superseded(_ sent: Outgoing) {
        var ready: [@Sendable () -> Void] = []
        state.withLock { $0.finish(sent.batchId, delivered: nil, stamp: sent.stamp, into: &ready) }
        ready.forEach { $0() }
    }

    private func lose(_ reason: String) {
        let (first, flushes) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            defer { state.broken = true; state.flushes = [:] }
            return (!state.broken, Array(state.flushes.values))
        }
        if first { onLoss(reason) }
        flushes.forEach { $0.resume() }
    }
}
