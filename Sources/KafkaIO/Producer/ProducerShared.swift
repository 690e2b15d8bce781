import Synchronization

/// The producer state shared between senders, the poll thread and the delivery-report callback.
final class ProducerShared: Sendable {
    /// Everything behind the mutex.
    struct State {
        /// Commands waiting for the poll thread.
        var commands: [ProducerCommand] = []
        /// Set when closing began; later sends are refused.
        var isClosed = false
        /// Senders waiting for room in librdkafka's queue (`_QUEUE_FULL`).
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The shared state.
    let state = Mutex(State())
    /// Feeds ``KafkaProducer/errors``.
    let errors: AsyncStream<KafkaError>.Continuation
    /// Interrupts the poll thread's wait.
    let waker: PollWaker

    /// State for a producer that is about to start.
    init(errors: AsyncStream<KafkaError>.Continuation, waker: PollWaker) {
        self.errors = errors
        self.waker = waker
    }

    /// Queues a command for the poll thread; `false` if the producer is closed.
    func send(_ command: ProducerCommand) -> Bool {
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.commands.append(command)
            return true
        }
        if accepted { waker.wake() }
        return accepted
    }

    /// Suspends until the poll thread has served delivery reports (which frees queue room) or the producer
    /// closes.
    func waitForSpace() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                if state.isClosed { return true }
                state.spaceWaiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    /// Wakes the senders waiting for queue room; the poll thread calls it after each poll.
    func releaseSpaceWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.spaceWaiters = [] }
            return state.spaceWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
