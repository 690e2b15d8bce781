import Foundation
import Synchronization
import UploadEngine

/// The worker's batches by id: applies job and control records, publishes every engine event, sends messages on
/// drain, and says when a record may be committed.
///
/// A record is let go once its batch settles — idle, with any send it triggered finished — and the events published
/// before that have been delivered. That is conservative (a record may wait for other records' files of the same
/// batch) and never commits a job whose files or messages are still under way.
///
/// Locking: one `Mutex` over the sessions. It is never held while calling into a `BatchRunner` that may deliver
/// events, because runners call back into the registry from their observers.
public final class BatchRegistry: Sendable {
    /// What the registry needs from the world.
    public struct Dependencies: Sendable {
        /// Creates the runner of a new batch (with the configured stager, presigner and uploader).
        public var makeRunner: @Sendable (UploadBatch) -> BatchRunner
        public var publisher: any EventPublisher
        /// nil when messages are off (`messages.mode = none`).
        public var sender: (any MessageSender)?
        public var clock: any EngineClock
        public var logger: Logger

        public init(makeRunner: @escaping @Sendable (UploadBatch) -> BatchRunner, publisher: any EventPublisher,
                    sender: (any MessageSender)?, clock: any EngineClock = SystemClock(), logger: Logger = .silent) {
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
    let random = Mutex(JitterRandom())

    public init(configuration: EngineConfiguration, dependencies: Dependencies) {
        self.configuration = configuration
        self.dependencies = dependencies
    }

    // MARK: - Records

    /// Applies one record's command; `done` runs when the record may be committed, `abandoned` instead when its
    /// batch is handed to another owner first (the record stays uncommitted).
    public func handle(_ command: JobCommand, partition: Int32? = nil, done: @escaping @Sendable () -> Void,
                       abandoned: @escaping @Sendable () -> Void = {}) {
        let release = RecordRelease(settled: done, abandoned: abandoned)
        let batchId = command.batchId
        let now = dependencies.clock.now()
        if case .upload(let job) = command {
            let runner = sessions.withLock { sessions in
                let take = { (session: inout BatchSession) -> BatchRunner in
                    session.options = job.message
                    session.waiting.append(release)
                    session.intake += 1
                    session.lastActivity = now
                    return session.runner
                }
                if let runner = sessions.update(batchId, take) { return runner }
                var session = newSession(for: job, partition: partition)
                let runner = take(&session)
                sessions.insert(session, for: batchId)
                return runner
            }
            if let concurrency = job.concurrency { runner.setConcurrency(concurrency) }
            runner.upload(job.files, requestId: job.requestId)
            finishIntake(batchId)
            return
        }
        guard let runner = sessions.withLock({ sessions in
            sessions.update(batchId) { session in
                session.waiting.append(release)
                session.intake += 1
                session.lastActivity = now
                if case .send = command { session.sendRequested = true }
                return session.runner
            }
        }) else {
            dependencies.logger.warn("control for a batch this worker does not hold: nothing to do", ["batchId": batchId, "control": "\(command)"])
            done()
            return
        }
        switch command {
        case .retry(_, let fileId):
            report(runner.retry(fileId: fileId), control: "retry", batchId: batchId, fileId: fileId)
        case .remove(_, let fileId):
            report(runner.remove(fileId: fileId), control: "remove", batchId: batchId, fileId: fileId)
        case .clear:
            runner.clear()
        case .configure(_, let concurrency):
            runner.setConcurrency(concurrency)
        case .send:
            startSendingIfDue(batchId)
        case .upload:
            break
        }
        finishIntake(batchId)
    }

    private func finishIntake(_ batchId: String) {
        sessions.withLock { sessions in sessions.update(batchId) { $0.intake -= 1 } }
        settleIfIdle(batchId)
    }

    /// The batches whose records came from these partitions stop at once and are forgotten, their waiting records
    /// given up (uncommitted): the partitions' new owner replays them (object keys and muids are deterministic).
    public func abandon(partitions: Set<Int32>) {
        let leaving = sessions.withLock { sessions in
            let leaving = sessions.filter { $0.value.partition.map(partitions.contains) ?? false }
            for batchId in leaving.keys { sessions.removeValue(forKey: batchId) }
            return leaving.values
        }
        for session in leaving {
            session.runner.abandon()
            session.waiting.forEach { $0.abandoned() }
        }
    }

    /// Forgets idle batches untouched for `ttl`, giving back failed files' retained bytes; a later `retry` for them
    /// is a logged no-op.
    public func sweep(idleFor ttl: Duration) {
        let cutoff = dependencies.clock.now().addingTimeInterval(-ttl.timeInterval)
        let candidates: [String: BatchSession] = sessions.withLock { sessions in
            sessions.filter { $0.value.lastActivity < cutoff && $0.value.waiting.isEmpty && !$0.value.sending }
        }
        let expired = candidates.filter { (entry: (key: String, value: BatchSession)) in entry.value.runner.status == .idle }
        guard !expired.isEmpty else { return }
        sessions.withLock { sessions in
            for batchId in expired.keys where sessions.read(batchId, { $0.waiting.isEmpty }) == true { sessions.removeValue(forKey: batchId) }
        }
        expired.values.forEach { $0.runner.releaseRetainedBytes() }
    }

    /// Batches with work under way or records waiting: the measure for pausing intake.
    public var busyBatchCount: Int {
        sessions.withLock { $0.busyCount }
    }

    /// Batches held in memory.
    public var batchCount: Int { sessions.withLock { $0.count } }

    /// The runner of a batch, for inspection.
    public func runner(for batchId: String) -> BatchRunner? {
        sessions.withLock { sessions in sessions.read(batchId) { $0.runner } }
    }

    private func newSession(for job: UploadJob, partition: Int32?) -> BatchSession {
        let batch = UploadBatch(context: job.context, configuration: configuration, concurrency: job.concurrency)
        let runner = dependencies.makeRunner(batch)
        let batchId = job.batchId
        runner.setGlobalObserver { [weak self] event in self?.observe(event, batchId: batchId) }
        runner.setSettledObserver { [weak self] in self?.settleIfIdle(batchId) }
        return BatchSession(runner: runner, context: job.context, options: job.message, partition: partition,
                            lastActivity: dependencies.clock.now())
    }

    private func report(_ outcome: ControlOutcome, control: String, batchId: String, fileId: String) {
        guard outcome != .applied else { return }
        dependencies.logger.info("\(control) did nothing", ["batchId": batchId, "fileId": fileId, "reason": outcome.rawValue])
    }

    // MARK: - Events

    private func observe(_ event: UploadEvent, batchId: String) {
        publish(.upload(event), batchId: batchId)
        guard event.isCompletion else { return }
        let autoSend = sessions.withLock { sessions in
            sessions.update(batchId) { session in
                session.sendRequestId = event.requestId
                return session.options.send == .auto
            } ?? false
        }
        if autoSend { startSendingIfDue(batchId, requested: true) }
        settleIfIdle(batchId)
    }

    /// Publishes with the batch's next sequence number. The registry lock only finds the batch; the batch's own
    /// sequence lock keeps its events in number order, so different batches publish side by side.
    func publish(_ event: WorkerEvent, batchId: String) {
        if let sequence = sessions.withLock({ sessions in sessions.read(batchId) { $0.events } }) {
            sequence.publish(event, to: dependencies.publisher)
        } else {
            dependencies.publisher.publish(event, sequence: 0)
        }
    }

    /// Lets the batch's waiting records go if it is settled (idle, its events delivered to the registry), not
    /// sending and not taking a record in. A batch whose events are still on their way is looked at again when the
    /// runner says it settled.
    ///
    /// Reading the runner under the registry lock is safe: it only takes the runner's own lock, and runners never
    /// hold theirs while calling back here.
    func settleIfIdle(_ batchId: String) {
        let released = sessions.withLock { sessions in
            sessions.update(batchId) { session -> [RecordRelease] in
                guard session.intake == 0, !session.sending, !session.sendRequested, !session.waiting.isEmpty,
                      session.runner.isSettled else { return [] }
                defer { session.waiting = [] }
                return session.waiting
            } ?? []
        }
        guard !released.isEmpty else { return }
        dependencies.publisher.whenDelivered { released.forEach { $0.settled() } }
    }
}
