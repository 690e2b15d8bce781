/// How a ``KafkaPartitionReader/readToEnd(topic:partition:from:handle:)`` ended.
public enum PartitionReadOutcome: Sendable, Hashable {
    /// Every record from the start offset up to the end offset captured at the start was handed over.
    case completed(PartitionReadSummary)
    /// The offset asked for lies past the partition's end offset `end`: whoever remembered it claims more than the
    /// topic holds (the topic was recreated, or the copy belongs to another cluster) and must be rebuilt from the
    /// topic. Nothing was read.
    case aheadOfTopic(end: Int64)
}
