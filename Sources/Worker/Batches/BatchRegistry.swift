import Foundation
import KafkaIO
import Records
import Synchronization
import UploadEngine

/// The worker's batches by id, as the engine's driver: applies job and control records to their batch's runner,
/// publishes every engine event, and says when a record may be committed. Every rule — uploads, sends, retries —
/// is the engine's; what the registry adds is which records wait for which batch, and where batches live.
///
/// A record is let go once its batch settles — quiescent, with any send it triggered finished — the events
/// published before that have been delivered, and the snapshot reflecting it has been delivered. That is
/// conservative (a record may wait for other records' files of the same batch) and never commits a job whose files
/// or messages are still under way.
///
/// Memory: a batch stays while records wait for it or its files are under way. Once it settles and its state is
/// recorded it leaves memory — the durable state keeps the most recent ones encoded (`worker.maxCachedBatches`),
/// the store all of them — and a record for it reads it back. A batch whose failed files keep staged bytes stays
/// until `staging.retainFailed` gives them back: the runner owns those bytes.
///
/// Locking: one `Mutex` over the sessions. It is never held while calling into a `BatchRunner` that may deliver
/// events, because runners call back into the registry from their observers.
public final class BatchRegistry: Sendable {
    /// What the registry needs from the world.
    public struct Dependencies: Sendable {
        /// Creates the runner of a batch (with the configured stager, presigner, uploader and message poster).
        public var makeRunner: @Sendable (UploadBatch, (any MessagePoster)?) -> BatchRunner
        public var publisher: any EventPublisher
        /// nil when messages are off (`messages.mode = none`).
        public var sender: (any MessageSender)?
        public var clock: any EngineClock
        public var logger: Logger
        var durability: any BatchDurability = VolatileBatchState()

        public init(makeRunner: @escaping @Sendable (UploadBatch, (any MessagePoster)?) -> BatchRunner,
                    publisher: any EventPublisher, sender: (any MessageSender)?, clock: any EngineClock = SystemClock(),
                    logger: Logger = .silent) {
            self.makeRunner = makeRunner
            self.publisher = publisher
            self.sender = sender
            self.clock = clock
            self.logger = logger
        }
    }

    let configuration: EngineConfiguration
    let dependencies: Dependencies
    let sessions = Mutex(SessionTable())
    private let evictions = Atomic<Int>(0)
    /// In a struct: a closure that is a `Mutex`'s value itself is reabstracted on every access and its thunks pile
    /// up, one more layer per change of the busy count.
    private struct BusyObserver {
        var call: (@Sendable () -> Void)?
    }
    private let busyObserver = Mutex(BusyObserver())
    private struct Receiver {
        var records: (any HeldRecords)?
    }
    /// Where held records go once their fate is known: set once, by the intake (which needs the consumer, and the
    /// consumer's revoke hook needs the registry).
    private let receiver = Mutex(Receiver())
    private let poster: (any MessagePoster)?

    /// Batches made or restored here send messages only if `dependencies.sender` is set: a runner without a
    /// poster plans no messages.
    public init(configuration: EngineConfiguration, dependencies: Dependencies) {
        self.configuration = configuration
        self.dependencies = dependencies
        self.poster = dependencies.sender.map { SenderPoster(sender: $0) }
    }

    // MARK: - Records

    /// Sends held records, once their fate is known, to `records` (see ``HeldRecords``).
    func returnRecords(to records: any HeldRecords) {
        receiver.withLock { $0.records = records }
    }

    /// Applies one record's command, and holds the record until its batch settles: then it is handed back to be
    /// committed, or to be given up if the batch goes to another owner first (see ``returnRecords(to:)``). A record at
    /// or below its batch's `appliedThrough` was applied before (by this worker or the batch's previous owner): it is
    /// not applied again, only let go once its batch settles.
    public func handle(_ command: JobCommand, record: RecordPosition) {
        let batchId = command.batchId
        let partition = record.partition
        let offset = record.offset
        let now = dependencies.clock.now()
        let job: UploadJob? = if case .upload(let job) = command { job } else { nil }
        var loaded: UploadBatch?
        if let job {
            switch settleAtIntake(job, record: record, now: now) {
            case .settled: return
            case .needsRunner(let batch): loaded = batch
            case .inMemory: break
            }
        }
        guard let runner = takeIn(batchId, partition: partition, creatingFor: job, loaded: loaded, record: record, now: now) else {
            dependencies.logger.warn("control for a batch this worker does not hold: nothing to do",
                                     ["batchId": batchId, "control": "\(command)"])
            heldRecords?.commit([record])
            return
        }
        if let applied = runner.appliedThrough, offset <= applied {
            finishIntake(batchId)
            return
        }
        switch command {
        case .upload(let job):
            runner.upload(job.files, requestId: job.requestId, options: job.message, concurrency: job.concurrency,
                          context: job.context, offset: offset)
        case .retry(_, let fileId):
            report(runner.retry(fileId: fileId, offset: offset), control: "retry", batchId: batchId, fileId: fileId)
        case .remove(_, let fileId):
            report(runner.remove(fileId: fileId, offset: offset), control: "remove", batchId: batchId, fileId: fileId)
        case .clear:
            runner.clear(offset: offset)
        case .configure(_, let concurrency):
            runner.setConcurrency(concurrency, offset: offset)
        case .send:
            runner.requestSend(offset: offset)
        }
        finishIntake(batchId)
    }

    /// What ``settleAtIntake(_:record:now:)`` did with a job.
    private enum IntakeSettling {
        /// Applied to the batch as a value, which it left settled: the record waits only for its events and snapshot.
        case settled
        /// The batch (from the store, or new) needs a runner for this job: the batch as it was before the job.
        case needsRunner(UploadBatch?)
        /// The batch is in memory, with its runner.
        case inMemory
    }

    /// A job for a batch not in memory that leaves it settled at once — every file refused at intake: nothing to
    /// stage, upload or send — is applied to the batch as a value, without a runner, a session or their teardown
    /// (most of the cost of a refused job): its events are published, its snapshot is owed from the value, and the
    /// record is committed once both are delivered, as a settled batch's records are. Anything else takes the usual
    /// path, with the batch as it was. Only where the durable state can give the batch back to a later record.
    private func settleAtIntake(_ job: UploadJob, record: RecordPosition, now: Date) -> IntakeSettling {
        let durability = dependencies.durability
        let batchId = job.batchId
        guard durability.keepsBatches, let records = heldRecords else { return .needsRunner(nil) }
        guard withSessions({ $0.read(batchId) { _ in true } }) == nil else { return .inMemory }
        let base = durability.load(batchId: batchId, partition: record.partition)
            ?? UploadBatch(context: job.context, configuration: configuration, concurrency: job.concurrency, options: job.message)
        // A replay waits for its batch to settle on the usual path.
        if let applied = base.appliedThrough, record.offset <= applied { return .needsRunner(base) }
        var batch = base
        let effects = batch.applyJob(job.files, requestId: job.requestId, options: job.message, concurrency: job.concurrency,
                                     context: job.context, offset: record.offset, now: now)
        guard effects.actions.isEmpty, batch.isQuiescent else { return .needsRunner(base) }
        // Events first: a snapshot is never taken ahead of the events of its transitions (§4.1).
        effects.events.forEach(observe)
        durability.settled(batchId: batchId, partition: record.partition, batch: batch)
        let version = batch.stateVersion
        dependencies.publisher.whenDelivered { [self] in
            durability.whenRecorded(batchId: batchId, version: version) { [self] in
                records.commit([record])
                // Its value went from the owed snapshots to the store: a batch that left memory, as an evicted one.
                evictions.add(1, ordering: .relaxed)
            }
        }
        return .settled
    }

    /// The batch's runner with the record registered as waiting on it: from memory, else `loaded` or the store, else
    /// — for an upload job — a new batch. nil for a control about a batch that exists nowhere.
    private func takeIn(_ batchId: String, partition: Int32, creatingFor job: UploadJob?, loaded: UploadBatch? = nil,
                        record: RecordPosition, now: Date) -> BatchRunner? {
        let take = { (session: inout BatchSession) -> BatchRunner in
            session.waiting.append(record)
            session.intake += 1
            session.lastActivity = now
            return session.runner
        }
        if let runner = withSessions({ $0.update(batchId, take) }) { return runner }
        var stored = loaded ?? dependencies.durability.load(batchId: batchId, partition: partition)
        // A cleared batch is there only for a job to continue (§4.1 *Clear*): for a control it is no batch at all.
        if job == nil, stored?.isCleared == true { stored = nil }
        let batch = stored
            ?? job.map { UploadBatch(context: $0.context, configuration: configuration, concurrency: $0.concurrency, options: $0.message) }
        guard let batch else { return nil }
        let made = makeSession(for: batch, partition: partition)
        return withSessions { sessions in
            // Another lane cannot hold the same batch (lanes are by batch id), but a restore may have put it here.
            if let runner = sessions.update(batchId, take) { return runner }
            var session = made
            let runner = take(&session)
            sessions.insert(session, for: batchId)
            return runner
        }
    }

    /// Puts batches restored with work pending (files in flight, a send under way) back to work.
    func resume(_ batches: [UploadBatch], partition: Int32) {
        let now = dependencies.clock.now()
        for batch in batches {
            let session = makeSession(for: batch, partition: partition, at: now)
            let inserted = withSessions { sessions -> Bool in
                guard sessions.read(batch.batchId, { _ in true }) == nil else { return false }
                sessions.insert(session, for: batch.batchId)
                return true
            }
            if inserted { session.runner.resume() }
        }
    }

    private func finishIntake(_ batchId: String) {
        withSessions { sessions in sessions.update(batchId) { $0.intake -= 1 } }
        settleIfIdle(batchId)
    }

    /// The batches of these partitions start nothing new (DESIGN §4 *Rebalance*: their queued files and due sends go
    /// to the next owner with their snapshots) while what they have in flight gets up to `timeout` to finish; answers
    /// how many batches still had work in flight when it ran out (0: all finished in time).
    func holdForHandover(partitions: Set<Int32>, timeout: Duration) async -> Int {
        let runners = withSessions { sessions in
            sessions.filter { partitions.contains($0.value.partition) }.values.map(\.runner)
        }
        guard !runners.isEmpty else { return 0 }
        let remaining = Atomic<Int>(runners.count)
        _ = await FirstOfEventOrTimeout.wait(upTo: timeout) { fire in
            for runner in runners {
                runner.holdForHandover {
                    if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { fire() }
                }
            }
            // A runner's settling callback cannot be taken back; firing after the end does nothing.
            return {}
        }
        return remaining.load(ordering: .acquiring)
    }

    /// The batches whose records came from these partitions stop at once and are forgotten, their waiting records
    /// given up (uncommitted): the partitions' new owner restores them from their snapshots and replays the rest
    /// (object keys and muids are deterministic).
    public func abandon(partitions: Set<Int32>) {
        let leaving = withSessions { sessions in
            let leaving = sessions.filter { partitions.contains($0.value.partition) }
            for batchId in leaving.keys { sessions.removeValue(forKey: batchId) }
            return leaving.values
        }
        let records = heldRecords
        for session in leaving {
            session.runner.abandon()
            if !session.waiting.isEmpty { records?.giveUp(session.waiting) }
        }
    }

    /// Forgets idle batches untouched for `ttl` (tombstoning them), gives back failed files' bytes retained longer
    /// than `retainFailed`, and lets idle batches without retained bytes leave memory once recorded.
    public func sweep(idleFor ttl: Duration, retainFailed: Duration) {
        let now = dependencies.clock.now()
        let expiry = now.addingTimeInterval(-ttl.timeInterval)
        let retention = now.addingTimeInterval(-retainFailed.timeInterval)
        let idle: [(batchId: String, session: BatchSession)] = sessions.withLock { sessions in
            sessions.filter { $0.value.waiting.isEmpty && $0.value.intake == 0 }.map { ($0.key, $0.value) }
        }
        for (batchId, session) in idle where session.runner.isSettled {
            if session.lastActivity < expiry {
                if expire(batchId, runner: session.runner, untouchedSince: expiry) { session.runner.releaseRetainedBytes() }
                continue
            }
            if session.lastActivity < retention { session.runner.releaseRetainedBytes() }
            leaveMemoryOnceRecorded(batchId, runner: session.runner)
        }
    }

    /// Once the batch's current state is recorded, drops it from memory if it is still idle, untouched and holds no
    /// staged bytes. Nothing to do where the durable state cannot give batches back (`state.durable = false`).
    private func leaveMemoryOnceRecorded(_ batchId: String, runner: BatchRunner) {
        guard dependencies.durability.keepsBatches, !runner.holdsRetainedBytes else { return }
        let version = runner.stateVersion
        dependencies.durability.whenRecorded(batchId: batchId, version: version) { [weak self] in
            self?.evict(batchId, runner: runner, version: version)
        }
    }

    private func evict(_ batchId: String, runner: BatchRunner, version: Int) {
        let evicted = withSessions { sessions -> Bool in
            let idle = sessions.read(batchId) { session in
                session.runner === runner && session.waiting.isEmpty && session.intake == 0
            }
            // A batch that changed since is recorded again, and looked at again when it next settles.
            guard idle == true, runner.isSettled, runner.stateVersion == version, !runner.holdsRetainedBytes else { return false }
            sessions.removeValue(forKey: batchId)
            return true
        }
        if evicted { evictions.add(1, ordering: .relaxed) }
    }

    /// Drops and tombstones a batch the sweep found expired, if it still is: between the sweep's look and now a lane
    /// may have handed it a record, which would then wait on a batch nobody holds, its offset never committed.
    private func expire(_ batchId: String, runner: BatchRunner, untouchedSince expiry: Date) -> Bool {
        let removed = withSessions { sessions -> BatchSession? in
            let idle = sessions.read(batchId) { session in
                session.runner === runner && session.waiting.isEmpty && session.intake == 0 && session.lastActivity < expiry
            }
            guard idle == true, runner.isSettled else { return nil }
            return sessions.removeValue(forKey: batchId)
        }
        guard let removed else { return false }
        dependencies.durability.forget(batchId: batchId, partition: removed.partition)
        return true
    }

    /// Batches that left memory so far: the worker gives the allocator's freed pages back after many left.
    public var evictedCount: Int { evictions.load(ordering: .relaxed) }

    /// Sets what to call after ``busyBatchCount`` changed (outside the registry's lock): backpressure follows it.
    func onBusyChange(_ observer: (@Sendable () -> Void)?) {
        busyObserver.withLock { $0.call = observer }
    }

    /// Changes the sessions under their lock, then tells the busy observer if the count of busy batches moved.
    private func withSessions<Result>(_ body: (inout SessionTable) -> Result) -> Result {
        let (result, moved) = sessions.withLock { sessions -> (Result, Bool) in
            let before = sessions.busyCount
            let result = body(&sessions)
            return (result, sessions.busyCount != before)
        }
        if moved { busyObserver.withLock { $0.call }?() }
        return result
    }

    /// Batches with records waiting: the measure for pausing intake.
    public var busyBatchCount: Int {
        sessions.withLock { $0.busyCount }
    }

    /// Batches held in memory.
    public var batchCount: Int { sessions.withLock { $0.count } }

    /// Whether the durable state cannot keep what is recorded right now: intake takes no records meanwhile.
    public var isDurabilityBlocked: Bool { dependencies.durability.isBlocked }

    /// The runner of a batch, for inspection.
    public func runner(for batchId: String) -> BatchRunner? {
        sessions.withLock { sessions in sessions.read(batchId) { $0.runner } }
    }

    private func makeSession(for batch: UploadBatch, partition: Int32, at now: Date? = nil) -> BatchSession {
        let runner = dependencies.makeRunner(batch, poster)
        let batchId = batch.batchId
        let durability = dependencies.durability
        runner.setGlobalObserver { [weak self] event in self?.observe(event) }
        runner.setSettledObserver { [weak self] in self?.settleIfIdle(batchId) }
        runner.setChangeObserver { [weak runner] in
            if let runner { durability.changed(batchId: batchId, partition: partition, runner: runner) }
        }
        // A send's plan is in the changelog before its first post (§4.1 *Sends*).
        runner.setRecorder { version, action in durability.whenRecorded(batchId: batchId, version: version, action) }
        return BatchSession(runner: runner, partition: partition, lastActivity: now ?? dependencies.clock.now())
    }

    private func report(_ outcome: ControlOutcome, control: String, batchId: String, fileId: String) {
        guard outcome != .applied else { return }
        dependencies.logger.info("\(control) did nothing", ["batchId": batchId, "fileId": fileId, "reason": outcome.rawValue])
    }

    // MARK: - Events

    /// Publishes an engine event with the sequence number the engine gave it; the runner hands a batch's events
    /// over one at a time, in number order.
    private func observe(_ event: UploadEvent) {
        if case .messageFailed(let muid, let error, let attempt, _) = event.kind {
            dependencies.logger.warn("message send failed", ["batchId": event.batchId, "muid": muid, "attempt": String(attempt),
                                                              "error": "\(error.code): \(error.message)"])
        }
        dependencies.publisher.publish(.upload(event), sequence: event.sequence)
    }

    /// Lets the batch's waiting records go if it is settled (quiescent, its events delivered to the registry) and
    /// not taking a record in, once its events and its snapshot are delivered. A batch whose events are still on
    /// their way is looked at again when the runner says it settled.
    ///
    /// Reading the runner under the registry lock is safe: it only takes the runner's own lock, and runners never
    /// hold theirs while calling back here.
    func settleIfIdle(_ batchId: String) {
        let settled = withSessions { sessions in
            sessions.update(batchId) { session -> (released: [RecordPosition], runner: BatchRunner)? in
                guard session.intake == 0, session.runner.isSettled else { return nil }
                defer { session.waiting = [] }
                return (session.waiting, session.runner)
            } ?? nil
        }
        guard let (released, runner) = settled else { return }
        let durability = dependencies.durability
        // A cleared batch too: its snapshot says so (§4.1 *Clear*), and a job for it continues from that.
        leaveMemoryOnceRecorded(batchId, runner: runner)
        guard !released.isEmpty, let records = heldRecords else { return }
        // Snapshot before offset (§4.1): the events published up to now, then the snapshot of this version.
        let version = runner.stateVersion
        dependencies.publisher.whenDelivered {
            durability.whenRecorded(batchId: batchId, version: version) { records.commit(released) }
        }
    }

    var heldRecords: (any HeldRecords)? { receiver.withLock { $0.records } }
}
