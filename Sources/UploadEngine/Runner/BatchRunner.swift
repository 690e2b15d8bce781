import Foundation
import Synchronization

/// Receives a batch's events. Called on whichever thread produced the event (a transfer loop, a timer), one event
/// at a time and in order; keep it quick and non-blocking (hand the event to a queue or a producer).
public typealias UploadObserver = @Sendable (UploadEvent) -> Void

/// Drives one `UploadBatch` against the real world: performs its actions through a `SourceStager`, a `Presigner`
/// and an `Uploader`, feeds their outcomes back, keeps its timers, and delivers its events to observers.
///
/// Thread safety: all state sits behind one `Mutex`; the batch's pure transitions run under it, while I/O runs in
/// tasks and observers are called outside it, in event order (one caller at a time drains the outbox).
public final class BatchRunner: Sendable {
    struct Delivery {
        let event: UploadEvent
        /// The per-call observers that hear it (most events have none: no array is made for them), then the global one.
        let calls: [UploadObserver]
        let global: UploadObserver?
    }

    struct State {
        var batch: UploadBatch
        /// The task running an attempt's stage or upload; cancelled by the batch's `cancel` action.
        var attempts: [AttemptToken: AttemptTask] = [:]
        /// The tasks running a presign call, which only ``abandon()`` cancels.
        var presigning = PresignCalls()
        /// The batch's one pending deadline with the shared scheduler.
        var timer: (deadline: Date, ticket: DeadlineScheduler.Ticket)?
        /// Per-call observers by request id; dropped once the request has no file left in the batch.
        var callObservers: [String: UploadObserver] = [:]
        /// The single global slot (`addUploadListener`): a later observer replaces the earlier one.
        var globalObserver: UploadObserver?
        var outbox: [Delivery] = []
        var delivering = false
        /// Handed to another owner: nothing more happens, and late outcomes only give their bytes back.
        var abandoned = false
        /// Told each time a delivery round ends with the batch idle; see ``setSettledObserver(_:)``.
        var settledObserver: (@Sendable () -> Void)?
        /// Told after a transition that changed durable state; see ``setChangeObserver(_:)``.
        var changeObserver: (@Sendable () -> Void)?
        /// The message post under way.
        var posting: Task<Void, Never>?
        /// Asked to run its action once the batch's snapshot at a state version is recorded; nil: at once (no
        /// durable state).
        var recorder: (@Sendable (_ version: Int, _ action: @escaping @Sendable () -> Void) -> Void)?
        /// A send plan made by the transition being applied, to be recorded before its first post: asked of the
        /// recorder once the lock is let go (after the change observer heard of the plan's version).
        var awaitingRecord: (token: SendToken, version: Int)?
        /// Told once a held batch has nothing under way; see ``holdForHandover(whenQuiet:)``.
        var quietObserver: (@Sendable () -> Void)?
        /// The state version after the latest change that was not a record taken in — a file settled, a message
        /// sent, a timer fired —; -1 while there was none. See ``Recordable``.
        var newsVersion = -1
        /// The batch's standing with the worker's transfer slots, and what it last told them.
        var claim: TransferShares.Claim?
        var toldShares: TransferShares.Demand?
        /// Slots were granted since the batch last asked: its count with the slots must be read again.
        var granted = false

        /// Quiescent (idle, no send under way or due), and every event of the transitions so far has reached the
        /// observers.
        var isSettled: Bool { batch.isQuiescent && outbox.isEmpty && !delivering }
    }

    private let state: Mutex<State>
    let presigner: any Presigner
    let uploader: any Uploader
    let stager: any SourceStager
    let poster: (any MessagePoster)?
    private let clock: any EngineClock
    private let timers: DeadlineScheduler
    let shares: TransferShares?

    /// A runner for `batch`. Its deadlines (stalls, backoff, presign gathering) go to `timers`, which a worker shares
    /// across its batches; without one the runner keeps a scheduler of its own on `clock`. With `shares`, each file
    /// waits for one of the worker's transfer slots before it starts; without, only the batch's concurrency holds
    /// files back.
    public init(batch: UploadBatch, presigner: any Presigner, uploader: any Uploader, stager: any SourceStager,
                poster: (any MessagePoster)? = nil, clock: any EngineClock = SystemClock(), timers: DeadlineScheduler? = nil,
                shares: TransferShares? = nil) {
        var batch = batch
        // Without a poster nothing can be sent: drains plan no messages rather than fail them.
        if poster == nil { batch.configuration.sendsMessages = false }
        if shares != nil { batch.slotGrants = 0 }
        self.state = Mutex(State(batch: batch))
        self.shares = shares
        self.presigner = presigner
        self.uploader = uploader
        self.stager = stager
        self.poster = poster
        self.clock = clock
        self.timers = timers ?? DeadlineScheduler(clock: clock)
        if let shares {
            let claim = shares.claim { [weak self] in self?.slotsGranted() }
            state.withLock { $0.claim = claim }
        }
    }

    deinit {
        // A batch dropped with files waiting must not keep slots, nor a place in their queue.
        leaveShares()
    }

    public var batchId: String { state.withLock { $0.batch.batchId } }

    /// A copy of the batch as it is now, for its getters (status, attachments, count, result, …).
    public var snapshot: UploadBatch { state.withLock { $0.batch } }

    /// A copy of the batch to record, with what changed it.
    public struct Recordable: Sendable {
        public let batch: UploadBatch
        /// The batch's state version after its latest change that was not a record taken in (-1: none since this
        /// runner began). A change that only took records in needs no snapshot for the records' sake — they stay
        /// uncommitted until the batch settles, and a new owner replays them — so a writer may put its snapshot off
        /// while the batch works; one newer than the last snapshot written is news worth writing.
        public let newsVersion: Int
    }

    /// A copy of the batch to record, or nil while events of its transitions are still on their way to the
    /// observers: a recorded state must not get ahead of the events that tell of it, or a handover after the record
    /// and before the events would lose them (the next owner takes an uploaded file as told).
    public var recordable: Recordable? {
        state.withLock { $0.outbox.isEmpty && !$0.delivering ? Recordable(batch: $0.batch, newsVersion: $0.newsVersion) : nil }
    }

    /// The batch to record (``recordable``) without what changed it.
    public var recordableSnapshot: UploadBatch? { recordable?.batch }

    /// In progress while any file is queued or in flight.
    public var status: BatchStatus { state.withLock { $0.batch.status } }

    /// Quiescent (idle, no send under way or due), with every event of the batch's transitions delivered to the
    /// observers: what a caller that commits records once their batch settles must ask, since ``status`` turns idle
    /// before the events saying so (and the send a drain triggers) have been delivered.
    public var isSettled: Bool { state.withLock { $0.isSettled } }

    /// Uploaded attachments not yet sent in a message, in input order.
    public var unsentAttachments: [Attachment] { state.withLock { $0.batch.unsentAttachments } }

    /// The highest jobs-topic offset applied to the batch (see ``UploadBatch/appliedThrough``), without copying it.
    public var appliedThrough: Int64? { state.withLock { $0.batch.appliedThrough } }

    /// The batch's durable state version (see ``UploadBatch/stateVersion``).
    public var stateVersion: Int { state.withLock { $0.batch.stateVersion } }

    /// The multipart uploads the batch's unfinished files will resume.
    public var multipartUploads: [MultipartUpload] { state.withLock { $0.batch.multipartUploads } }

    // MARK: - Commands

    /// Adds files; `observer` hears about these files only (per-call), before the global observer. `options`, when
    /// given, become the batch's message options first; `offset` is the jobs-topic offset of the record applied;
    /// `context` is the job's, which a cleared batch takes up (see ``UploadBatch/takeJob(_:requestId:options:concurrency:context:now:)``).
    public func upload(_ items: [FileItem], requestId: String, options: MessageOptions? = nil, concurrency: Int? = nil,
                       context: BatchContext? = nil, offset: Int64? = nil, observer: UploadObserver? = nil) {
        apply(registering: observer.map { (requestId, $0) }, offset: offset) { batch, now in
            batch.takeJob(items, requestId: requestId, options: options, concurrency: concurrency, context: context, now: now)
        }
    }

    @discardableResult
    public func remove(fileId: String, offset: Int64? = nil) -> ControlOutcome {
        apply(offset: offset) { $0.remove(fileId: fileId, now: $1) }
    }

    @discardableResult
    public func retry(fileId: String, offset: Int64? = nil) -> ControlOutcome {
        apply(offset: offset) { $0.retry(fileId: fileId, now: $1) }
    }

    public func clear(offset: Int64? = nil) { apply(offset: offset) { $0.clear(now: $1) } }

    public func setConcurrency(_ value: Int, offset: Int64? = nil) {
        apply(offset: offset) { $0.setConcurrency(value, now: $1) }
    }

    /// A `send` control: posts the unsent attachments now (after a send under way, if any).
    public func requestSend(offset: Int64? = nil) { apply(offset: offset) { $0.requestSend(now: $1) } }

    /// Records that a jobs-topic record was applied to the batch without changing it (a replay).
    public func noteApplied(offset: Int64) { apply(offset: offset) { _, _ in BatchEffects() } }

    /// Starts what a batch restored from a snapshot has pending: its queued files and a send that was under way.
    public func resume() { apply { $0.resume(now: $1) } }

    /// Sets what to call after a transition that changed the batch's durable state (not progress): a snapshot is
    /// due. Called under the runner's lock, so it must not call back into the runner; keep it to noting the change.
    public func setChangeObserver(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.changeObserver = observer }
    }

    /// Sets what a send plan waits for before its first post (§4.1 *Sends*): `recorder(version, action)` runs
    /// `action` once the batch's snapshot at `version` or later is recorded. Without one, plans post at once.
    public func setRecorder(_ recorder: (@Sendable (_ version: Int, _ action: @escaping @Sendable () -> Void) -> Void)?) {
        state.withLock { $0.recorder = recorder }
    }

    /// Sets what to call when a round of deliveries ends with the batch idle: the moment ``isSettled`` may have
    /// turned true for a caller that asked while the round was under way. Called outside the runner's lock.
    public func setSettledObserver(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.settledObserver = observer }
    }

    /// Sets the global observer, replacing any earlier one; nil removes it.
    public func setGlobalObserver(_ observer: UploadObserver?) {
        state.withLock { $0.globalObserver = observer }
    }

    /// Starts nothing new — no queued file, retry or message — and calls `quiet` once nothing the batch started is
    /// under way any more and the events saying so reached the observers (at once if nothing is under way): the
    /// batch is being handed to another owner, which restores it and starts the rest, while what completes here
    /// meanwhile is not redone there.
    public func holdForHandover(whenQuiet quiet: @escaping @Sendable () -> Void) {
        // The hold first: told before it, a round of deliveries ending on another thread in between could find
        // nothing under way and call `quiet` while a presign finishing there still started an upload.
        apply { batch, _ in batch.holdForHandover() }
        state.withLock { $0.quietObserver = quiet }
        // A round that ended between the two did not see `quiet`: one more look (nothing, if a round is under way
        // — it looks when it ends).
        deliver()
    }

    /// Whether files keep staged bytes (failed ones, for a retry within `staging.retainFailed`).
    public var holdsRetainedBytes: Bool { state.withLock { state in state.batch.entries.contains { $0.staged != nil } } }

    /// Gives back failed files' retained bytes (their retry window is over).
    public func releaseRetainedBytes() { apply { batch, _ in batch.releaseRetainedBytes() } }

    /// Stops every task and timer and gives back all staged bytes: for a worker handing the batch to another owner,
    /// which restores it or replays its records. The runner does nothing afterwards, but the events of what it did
    /// still reach the observers: a snapshot may already say so, and the next owner does not tell it again.
    public func abandon() {
        let retained = state.withLock { state -> [StagedFile] in
            state.abandoned = true
            state.quietObserver = nil
            state.attempts.values.forEach { $0.cancel() }
            state.attempts.removeAll()
            state.presigning.cancelAll()
            state.posting?.cancel()
            state.posting = nil
            if let timer = state.timer { timers.cancel(timer.ticket) }
            state.timer = nil
            return state.batch.retainedFiles
        }
        for staged in retained {
            stager.releaseInBackground(staged)
        }
        // Its files' slots go to other batches: the ones still running were cancelled above.
        leaveShares()
        deliver()
    }

    /// Gives back the batch's transfer slots and its place in their queue.
    private func leaveShares() {
        guard let shares, let (claim, tenant) = state.withLock({ state -> (TransferShares.Claim, String)? in
            state.toldShares = nil
            return state.claim.map { ($0, state.batch.context.shareTenant) }
        }) else { return }
        tellOthers(shares.leave(claim, tenant: tenant))
    }

    // MARK: - The loop

    @discardableResult
    private func apply(registering observer: (String, UploadObserver)? = nil, offset: Int64? = nil,
                       firedTimer: DeadlineScheduler.Ticket? = nil, movesFiles: Bool = true,
                       _ transition: (inout UploadBatch, Date) -> BatchEffects) -> ControlOutcome {
        apply(registering: observer, offset: offset, finishing: nil, continuing: nil, firedTimer: firedTimer,
              movesFiles: movesFiles, transition).outcome
    }

    /// Applies a transition and performs its actions. A task that has just finished a piece of attempt work
    /// (`continuing`) takes over the first stage, presign or upload the transition asks for, instead of a new task
    /// being made for it: an attempt's stage, presign and upload run one after another in one task, not three.
    private func apply(registering observer: (String, UploadObserver)?, offset: Int64?, finishing token: AttemptToken?,
                       stagedForAbandoned staged: StagedFile? = nil, endingPresign: Bool = false, continuing task: AttemptTask?,
                       firedTimer: DeadlineScheduler.Ticket?, movesFiles: Bool = true,
                       _ transition: (inout UploadBatch, Date) -> BatchEffects) -> (outcome: ControlOutcome, next: AttemptWork?) {
        let now = clock.now()
        var slotNews: TransferShares.Reconciled?
        let (outcome, next) = state.withLock { state -> (ControlOutcome, AttemptWork?) in
            guard !state.abandoned else {
                if let staged { stager.releaseInBackground(staged) }
                return (.notApplicable, nil)
            }
            if let (requestId, observer) = observer { state.callObservers[requestId] = observer }
            if let token { state.attempts.removeValue(forKey: token) }
            if endingPresign, let task { state.presigning.remove(task) }
            if let firedTimer, state.timer?.ticket == firedTimer { state.timer = nil }
            let version = state.batch.stateVersion
            var effects = transition(&state.batch, now)
            if movesFiles || state.granted { slotNews = reconcileSlots(in: &state, effects: &effects, now: now) }
            if let offset { state.batch.noteApplied(offset: offset, now: now) }
            state.batch.stampSequence(&effects.events)
            for event in effects.events {
                state.outbox.append(Delivery(event: event, calls: callRecipients(of: event, in: state), global: state.globalObserver))
            }
            // Asked under the lock, where every cancellation happens: a task cancelled for the attempt it has just
            // ended must not carry the next one. (Today the apply that cancels an attempt also starts what its slot
            // frees, so a stale outcome hands nothing on; this keeps it so whatever a transition starts.)
            var claim = WorkClaim(task: task.flatMap { Task.isCancelled ? nil : $0 })
            for action in effects.actions { perform(action, in: &state, claim: &claim) }
            if !state.callObservers.isEmpty {
                state.callObservers = state.callObservers.filter { state.batch.hasFiles(from: $0.key) }
            }
            rescheduleTimer(in: &state)
            // Told under the lock: whoever sees the new version (a record settling on another thread) must find the
            // change already owed a snapshot.
            if state.batch.stateVersion != version {
                if offset == nil { state.newsVersion = state.batch.stateVersion }
                state.changeObserver?()
            }
            return (effects.outcome, claim.work)
        }
        if let slotNews { tellOthers(slotNews) }
        askRecorder()
        deliver()
        return (outcome, next)
    }

    /// Brings the batch's transfer slots in line with its files (``TransferShares/reconcile(_:_:)``), starting a
    /// queued file with each slot granted, until nothing changes. Under the runner's lock: the shares' lock is taken
    /// inside it, never the other way round. Returns what other batches must hear, once the lock is let go.
    private func reconcileSlots(in state: inout State, effects: inout BatchEffects, now: Date) -> TransferShares.Reconciled? {
        guard let shares, let claim = state.claim else { return nil }
        var news: TransferShares.Reconciled?
        while true {
            let demand = state.batch.slotDemand(now: now)
            guard demand != state.toldShares || state.granted else { break }
            state.granted = false
            let answer = shares.reconcile(claim, demand)
            state.toldShares = demand
            news = news.map { news in
                var news = news
                news.wakes += answer.wakes
                news.queueMarkCrossed = news.queueMarkCrossed != answer.queueMarkCrossed
                return news
            } ?? answer
            let free = answer.held - demand.inUse
            guard free > 0, demand.wanted > demand.inUse else {
                state.batch.slotGrants = 0
                break
            }
            let started = state.batch.grantSlots(free, now: now)
            effects.events += started.events
            effects.actions += started.actions
        }
        return news
    }

    /// Wakes the batches granted slots by what this one gave back, and tells of a crossed queue mark.
    private func tellOthers(_ news: TransferShares.Reconciled) {
        news.wakes.forEach { $0() }
        if news.queueMarkCrossed { shares?.tellQueueMarkCrossed() }
    }

    /// The worker's transfer slots granted this batch some: start files with them.
    private func slotsGranted() {
        state.withLock { $0.granted = true }
        apply { _, _ in BatchEffects() }
    }

    /// Hands a send plan just made to the recorder, outside the lock: its answer applies ``UploadBatch/planRecorded(_:now:)``
    /// (at once when there is no recorder).
    private func askRecorder() {
        guard let (awaiting, recorder) = state.withLock({ state -> ((token: SendToken, version: Int), (@Sendable (Int, @escaping @Sendable () -> Void) -> Void)?)? in
            guard let awaiting = state.awaitingRecord else { return nil }
            state.awaitingRecord = nil
            return (awaiting, state.recorder)
        }) else { return }
        let recorded: @Sendable () -> Void = { [self] in apply { $0.planRecorded(awaiting.token, now: $1) } }
        if let recorder { recorder(awaiting.version, recorded) } else { recorded() }
    }

    private func callRecipients(of event: UploadEvent, in state: State) -> [UploadObserver] {
        guard !state.callObservers.isEmpty else { return [] }
        if case .completed = event.kind { return Array(state.callObservers.values) }
        return state.callObservers[event.requestId].map { [$0] } ?? []
    }

    /// Calls observers outside the lock, in order; whoever finds the outbox unclaimed drains it. Once it is empty, a
    /// held batch that has gone quiet says so: only then have the events of what it finished been handed on.
    private func deliver() {
        let claimed = state.withLock { state in
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            typealias Told = (quiet: (@Sendable () -> Void)?, settled: (@Sendable () -> Void)?)
            let (deliveries, told) = state.withLock { state -> ([Delivery], Told) in
                guard !state.outbox.isEmpty else {
                    state.delivering = false
                    var quiet: (@Sendable () -> Void)?
                    if state.batch.isQuietForHandover {
                        quiet = state.quietObserver
                        state.quietObserver = nil
                    }
                    return ([], (quiet, state.isSettled && !state.abandoned ? state.settledObserver : nil))
                }
                // Taken whole, not emptied in place: emptying a buffer that is also being returned would copy it,
                // and an idle batch (most batches, most of the time) is left holding no buffer at all.
                defer { state.outbox = [] }
                return (state.outbox, (nil, nil))
            }
            if deliveries.isEmpty {
                told.quiet?()
                told.settled?()
                return
            }
            for delivery in deliveries {
                delivery.calls.forEach { $0(delivery.event) }
                delivery.global?(delivery.event)
            }
        }
    }

    /// An outcome arriving from a task: the attempt's task is done, then the batch hears of it. Bytes staged for an
    /// abandoned runner are given straight back. Returns the work `task` goes on with, if the transition asked for
    /// any and `task` may carry it.
    @discardableResult
    func finish(_ token: AttemptToken?, staged: StagedFile? = nil, endingPresign: Bool = false, continuing task: AttemptTask? = nil,
                _ transition: (inout UploadBatch, Date) -> BatchEffects) -> AttemptWork? {
        apply(registering: nil, offset: nil, finishing: token, stagedForAbandoned: staged, endingPresign: endingPresign,
              continuing: task, firedTimer: nil, transition).next
    }

    func reportProgress(_ token: AttemptToken, sent: Int64) {
        // Progress moves no file between phases: the transfer slots need not hear of it.
        apply(movesFiles: false) { $0.progress(token, sent: sent, now: $1) }
    }

    func recordMultipart(_ token: AttemptToken, _ upload: MultipartUpload) {
        apply(movesFiles: false) { $0.multipartStored(token, upload, now: $1) }
    }

    /// Keeps one timer at the batch's next deadline. A deadline that moved later (progress pushes stall deadlines
    /// out on every callback) keeps the earlier timer: it fires, finds nothing due, and re-arms. That spares a
    /// scheduling per progress callback.
    private func rescheduleTimer(in state: inout State) {
        guard let deadline = state.batch.nextDeadline else {
            if let timer = state.timer { timers.cancel(timer.ticket) }
            state.timer = nil
            return
        }
        if let timer = state.timer, timer.deadline <= deadline { return }
        if let timer = state.timer { timers.cancel(timer.ticket) }
        // Weak: a batch dropped by its owner should not be kept alive by a stall deadline 30 s out.
        let ticket = timers.schedule(at: deadline) { [weak self] ticket in
            self?.apply(firedTimer: ticket) { $0.tick(now: $1) }
        }
        state.timer = (deadline, ticket)
    }
}
