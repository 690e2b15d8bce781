import Foundation

/// One consumed record: where it came from, its key, value and headers.
///
/// Pass it back to ``KafkaConsumer/markFinished(_:)`` when its work is done; the record remembers which
/// assignment of its partition delivered it, so finishing a record of a partition that was revoked meanwhile
/// changes nothing.
public struct KafkaRecord: Sendable, Hashable {
    /// The topic.
    public var topic: String
    /// The partition.
    public var partition: Int32
    /// The record's offset in its partition.
    public var offset: Int64
    /// The key bytes, `nil` for a record without a key.
    public var key: Data?
    /// The value bytes, `nil` for a tombstone.
    public var value: Data?
    /// The headers, in record order.
    public var headers: [KafkaHeader]
    /// The record timestamp in milliseconds since 1970, if the record has one.
    public var timestampMilliseconds: Int64?
    /// Which assignment of the partition delivered the record (see ``KafkaConsumer/markFinished(_:)``): a number
    /// that changes each time this consumer is assigned the partition anew.
    public internal(set) var generation: UInt64

    /// Makes a record; `generation` is set by the consumer when it delivers the record.
    init(topic: String, partition: Int32, offset: Int64, key: Data?, value: Data?, headers: [KafkaHeader],
         timestampMilliseconds: Int64?, generation: UInt64 = 0) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
        self.generation = generation
    }

    /// The record's topic and partition.
    public var topicPartition: TopicPartition { TopicPartition(topic, partition) }

    /// The key decoded as UTF-8, if present and valid.
    public var keyString: String? { key.flatMap { String(data: $0, encoding: .utf8) } }

    /// The value of the first header called `name`, if any.
    public func header(_ name: String) -> KafkaHeader? { headers.first { $0.name == name } }
}
