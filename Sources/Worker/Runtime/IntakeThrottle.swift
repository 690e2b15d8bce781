import Synchronization

/// Backpressure (DESIGN §4 *Never stop polling*): pauses fetching while busy batches reach
/// `worker.maxInFlightBatches` or transfers (running or waiting) reach `worker.maxTransfers`, and resumes below both
/// marks. It is told whenever either count changes, so it follows them without polling; the consumer keeps polling
/// while paused, so the group never times the worker out.
///
/// Thread safety: a check reads both counts and acts under one lock, so two checks racing on different threads
/// cannot leave intake paused below the marks or running above them.
final class IntakeThrottle: Sendable {
    struct Marks: Sendable {
        var batches: Int
        var transfers: Int
    }

    private let marks: Marks
    private let busyBatches: @Sendable () -> Int
    private let transfers: @Sendable () -> Int
    private let pause: @Sendable () -> Void
    private let resume: @Sendable () -> Void
    private let logger: Logger
    private let state = Mutex((paused: false, stopped: false))

    init(marks: Marks, busyBatches: @escaping @Sendable () -> Int, transfers: @escaping @Sendable () -> Int,
         pause: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void, logger: Logger) {
        self.marks = marks
        self.busyBatches = busyBatches
        self.transfers = transfers
        self.pause = pause
        self.resume = resume
        self.logger = logger
    }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// One of the counts changed: pause or resume if the marks say so.
    func recheck() {
        state.withLock { state in
            guard !state.stopped else { return }
            let batches = busyBatches(), transfers = transfers()
            let overloaded = batches >= marks.batches || transfers >= marks.transfers
            guard overloaded != state.paused else { return }
            state.paused = overloaded
            if overloaded { pause() } else { resume() }
            logger.debug(overloaded ? "intake paused" : "intake resumed", ["busyBatches": String(batches), "transfers": String(transfers)])
        }
    }

    /// Intake stops for good (shutdown): paused, whatever the counts do afterwards.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.paused = true
            pause()
        }
    }
}
