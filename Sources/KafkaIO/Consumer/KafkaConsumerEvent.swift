/// Something that happened to the consumer besides records: rebalances and errors.
public enum KafkaConsumerEvent: Sendable, Hashable {
    /// Partitions were added to this consumer's assignment; their records will follow.
    case assigned([TopicPartition])
    /// Partitions were taken away in a rebalance. Announced before the revoke hook runs; by the time the next
    /// event arrives the hook has returned (or timed out) and their watermarks were committed.
    case revoked([TopicPartition])
    /// Partitions were lost (the session expired): another member may already own them, so nothing was committed.
    case lost([TopicPartition])
    /// An error from librdkafka or from a commit. Fatal errors (``KafkaError/isFatal``) end the consumer.
    case error(KafkaError)
}
