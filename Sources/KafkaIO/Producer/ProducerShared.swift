import Foundation
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
    /// Senders inside a produce call, and in ``closingBit`` whether closing began: records are handed to librdkafka
    /// without the state lock, which every delivery report and sender on other threads would wait behind.
    private let producing = Atomic<Int>(0)
    private static let closingBit = 1 << 62
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

    /// Enters a produce call; false once closing began (the record must be refused). Pair a true with
    /// ``leaveProduce()``.
    func enterProduce() -> Bool {
        guard producing.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue & Self.closingBit == 0 else {
            leaveProduce()
            return false
        }
        return true
    }

    func leaveProduce() {
        producing.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// Refuses produce calls from now on and returns once those under way have handed their records over, so a
    /// flush after it covers every record accepted. Produce calls never block, so the wait is a few microseconds.
    func closeProduces() {
        producing.bitwiseOr(Self.closingBit, ordering: .sequentiallyConsistent)
        while producing.load(ordering: .sequentiallyConsistent) & ~Self.closingBit != 0 { sched_yield() }
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
