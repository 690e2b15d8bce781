/// One partition of one topic.
public struct TopicPartition: Hashable, Sendable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number.
    public var partition: Int32

    /// Names a partition.
    public init(_ topic: String, _ partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    /// `topic[partition]`, the way librdkafka prints it.
    public var description: String { "\(topic)[\(partition)]" }
}
