/// What became of every event published before a barrier (``KafkaEventPublisher/whenSettled(_:)``): all delivered,
/// or at least one lost for good. A waiter is always told one or the other, so nothing that waits on the events —
/// a record's commit, a flush of batch snapshots, a shutdown — waits for a delivery that can no longer come.
public enum EventsOutcome: Sendable, Equatable {
    /// Every event published before the barrier was acknowledged by the events topic.
    case delivered
    /// An event was lost: the publisher is broken for good (the worker stops), and nothing may be vouched for.
    case lost
}
