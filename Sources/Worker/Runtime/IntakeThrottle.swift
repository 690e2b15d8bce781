import Synchronization

/// Backpressure (DESIGN §4 *Never stop polling*): pauses fetching while busy batches reach
/// `worker.maxInFlightBatches` or files waiting for a transfer slot reach `worker.maxQueuedFiles`, and resumes below
/// both marks. Full transfer slots are no reason to pause: they are a busy worker's normal state, and the slots can
/// only be shared fairly across tenants (DESIGN §12) if every tenant's waiting files are taken in. It is told whenever either count changes, so it follows them without polling; the consumer keeps polling
/// while paused, so the group never times the worker out.
///
/// Pausing the fetch alone does not bound the work: what was fetched before the pause (a burst of thousands of jobs
/// arrives in one or two fetches) would all be taken in. Intake therefore also waits here (``waitForRoom()``) before
/// it takes more records, and takes no more than ``room`` at a time, so busy batches stay near their mark and the
/// rest wait as records (measured on a 6,000-job burst: 3,997 busy batches, 2,841 transfers waiting and 148 MiB of
/// RSS before; see the note in ``JobIntake/consume()``).
///
/// Thread safety: a check reads both counts and acts under one lock, so two checks racing on different threads
/// cannot leave intake paused below the marks or running above them.
final class IntakeThrottle: Sendable {
    struct Marks: Sendable {
        var batches: Int
        var queuedFiles: Int
    }

    private let marks: Marks
    private let busyBatches: @Sendable () -> Int
    private let queuedFiles: @Sendable () -> Int
    private let pause: @Sendable () -> Void
    private let resume: @Sendable () -> Void
    /// Whether intake must wait whatever the counts say: the batch store cannot be written (§4.1 *Store failures*).
    private let held: @Sendable () -> Bool
    private let logger: Logger
    private struct State {
        var paused = false
        var stopped = false
        /// Intake waiting for room (one consume loop; a list only for safety).
        var waiters: [CheckedContinuation<Void, Never>] = []

        mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { waiters = [] }
            return waiters
        }
    }

    private let state = Mutex(State())

    init(marks: Marks, busyBatches: @escaping @Sendable () -> Int, queuedFiles: @escaping @Sendable () -> Int,
         pause: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void,
         held: @escaping @Sendable () -> Bool = { false }, logger: Logger) {
        self.marks = marks
        self.busyBatches = busyBatches
        self.queuedFiles = queuedFiles
        self.pause = pause
        self.resume = resume
        self.held = held
        self.logger = logger
    }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// One of the counts changed: pause or resume if the marks say so.
    func recheck() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.stopped else { return [] }
            let batches = busyBatches(), queued = queuedFiles()
            let overloaded = batches >= marks.batches || queued >= marks.queuedFiles || held()
            guard overloaded != state.paused else { return [] }
            state.paused = overloaded
            if overloaded { pause() } else { resume() }
            logger.debug(overloaded ? "intake paused" : "intake resumed", ["busyBatches": String(batches), "queuedFiles": String(queued)])
            return overloaded ? [] : state.takeWaiters()
        }
        woken.forEach { $0.resume() }
    }

    /// Intake waiting in ``waitForRoom()`` right now (for tests).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// How many more batches intake may start before the batch mark: what one take of records may hold at most
    /// (at least one, so a take is never empty).
    var room: Int { max(1, marks.batches - busyBatches()) }

    /// Returns once intake is below both marks, at once if it is; also once intake stopped or the caller's task is
    /// cancelled (a shutdown), since nothing will be taken in then.
    func waitForRoom() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.paused, !state.stopped, !Task.isCancelled else { return false }
                    state.waiters.append(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.takeWaiters() }.forEach { $0.resume() }
        }
    }

    /// Intake stops for good (shutdown): paused, whatever the counts do afterwards.
    func stop() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            state.paused = true
            pause()
            return state.takeWaiters()
        }
        woken.forEach { $0.resume() }
    }
}
