import Synchronization

/// One batch's CloudEvents `sequence` numbers, handed out in the order its events are published.
///
/// Numbering and publishing happen under one lock, so a batch's events reach the producer in number order even
/// when they come from different threads (transfers, sends); other batches do not wait for it.
final class EventSequence: Sendable {
    private let last = Mutex<UInt64>(0)

    /// Publishes `event` with the batch's next number.
    func publish(_ event: WorkerEvent, to publisher: any EventPublisher) {
        last.withLock { last in
            last += 1
            publisher.publish(event, sequence: last)
        }
    }
}
