import Foundation

/// A record to produce.
public struct KafkaProducerRecord: Sendable, Hashable {
    /// The destination topic.
    public var topic: String
    /// The key; records with the same key go to the same partition.
    public var key: Data?
    /// The value; `nil` produces a tombstone.
    public var value: Data?
    /// Headers, sent in this order.
    public var headers: [KafkaHeader]
    /// A fixed partition, or `nil` to let the partitioner choose from the key.
    public var partition: Int32?

    /// Makes a record.
    public init(topic: String, key: Data?, value: Data?, headers: [KafkaHeader] = [], partition: Int32? = nil) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
    }

    /// Makes a record with a string key.
    public init(topic: String, key: String, value: Data?, headers: [KafkaHeader] = [], partition: Int32? = nil) {
        self.init(topic: topic, key: Data(key.utf8), value: value, headers: headers, partition: partition)
    }
}

extension KafkaProducerRecord {
    /// The bytes of its key, its value and its headers' names and values: what a broker's and a producer's
    /// `message.max.bytes` measure, less the few bytes of the record's own framing.
    public var byteCount: Int {
        (key?.count ?? 0) + (value?.count ?? 0) + headers.reduce(0) { $0 + $1.rawName.count + ($1.value?.count ?? 0) }
    }
}
