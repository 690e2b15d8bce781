import Synchronization

/// Wakes a poll thread blocked in librdkafka so it looks at new commands at once instead of at its next timeout.
final class PollWaker: Sendable {
    private let queue = Mutex<RDQueue?>(nil)

    /// A waker with no queue yet.
    init() {}

    /// Sets the queue the poll thread blocks on.
    func install(_ queue: RDQueue) {
        self.queue.withLock { $0 = queue }
    }

    /// Forgets the queue (the poll thread has stopped), which also lets the client go.
    func clear() {
        queue.withLock { $0 = nil }
    }

    /// Interrupts the poll thread's current wait, if it has one.
    func wake() {
        queue.withLock { $0 }?.wake()
    }
}
