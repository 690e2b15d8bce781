/// A request from Swift that the consumer's poll thread carries out, because it needs the client handle.
enum ConsumerCommand: Sendable {
    /// Commit every owned partition's watermark and report when the broker confirmed.
    case commit(CompletionPromise<Void>)
    /// Read the group's committed offsets for some partitions (`rd_kafka_committed`), answering by `deadline`;
    /// `wait` is how long the next try may take (see ``ConsumerPollLoop``'s reading of committed offsets).
    case committed([TopicPartition], deadline: ContinuousClock.Instant, wait: Duration,
                   CompletionPromise<[TopicPartition: Int64]>)
    /// Commit, leave the group and stop.
    case close(CompletionPromise<Void>)
}
