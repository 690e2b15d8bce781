/// Where a consumed record sits, and which assignment of its partition delivered it: all that finishing the record
/// needs (``KafkaConsumer/markFinished(_:)-(some Sequence<RecordPosition>)``). Work that outlives a record's
/// handling holds this rather than the record, so the record's key, value and headers are not kept alive with it.
public struct RecordPosition: Sendable, Hashable {
    public let topicPartition: TopicPartition
    public let offset: Int64
    /// See ``KafkaRecord/generation``.
    public let generation: UInt64

    public var partition: Int32 { topicPartition.partition }

    public init(topicPartition: TopicPartition, offset: Int64, generation: UInt64 = 0) {
        self.topicPartition = topicPartition
        self.offset = offset
        self.generation = generation
    }
}

extension KafkaRecord {
    /// The record's position, for finishing it later.
    public var position: RecordPosition {
        RecordPosition(topicPartition: topicPartition, offset: offset, generation: generation)
    }
}
