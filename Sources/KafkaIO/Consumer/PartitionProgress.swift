/// How far the group is with one owned partition: its committed offset and its end, as this member knows them
/// without a broker round trip.
public struct PartitionProgress: Sendable, Hashable {
    /// The owned partition.
    public var partition: TopicPartition
    /// The last position the broker confirmed for this assignment, else the offset this member started reading at
    /// (the group's committed offset then, or the earliest one for a group without any); nil before a first fetch.
    public var committed: Int64?
    /// The partition's high watermark as of its latest fetch; nil before one.
    public var end: Int64?

    /// What is known of `partition`.
    public init(partition: TopicPartition, committed: Int64?, end: Int64?) {
        self.partition = partition
        self.committed = committed
        self.end = end
    }

    /// Records past the committed offset — the lag the group's coordinator would report, records held by work under
    /// way included; nil while either end is unknown.
    public var lag: Int64? {
        guard let committed, let end else { return nil }
        return max(0, end - committed)
    }
}
