/// Where the broker stored a produced record.
public struct KafkaDeliveryReport: Sendable, Hashable {
    /// The topic.
    public var topic: String
    /// The partition the record was written to.
    public var partition: Int32
    /// The record's offset in that partition.
    public var offset: Int64

    /// Makes a report.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}
