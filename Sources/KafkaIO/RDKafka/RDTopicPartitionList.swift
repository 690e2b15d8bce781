import CRdKafka

/// Owns one `rd_kafka_topic_partition_list_t`, lent out only through ``withListPointer(_:)``.
///
/// Not `Sendable`: built and used on one thread for one C call.
final class RDTopicPartitionList {
    private let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// An empty list with room for `capacity` entries.
    init(capacity: Int = 1) {
        pointer = rd_kafka_topic_partition_list_new(Int32(max(capacity, 1)))
    }

    /// A list of partitions, each with an offset (`RD_KAFKA_OFFSET_INVALID` when `nil`).
    convenience init(_ entries: [(TopicPartition, Int64?)]) {
        self.init(capacity: entries.count)
        for (partition, offset) in entries {
            add(partition, offset: offset)
        }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    /// Appends a partition with an offset.
    func add(_ partition: TopicPartition, offset: Int64? = nil) {
        let element = rd_kafka_topic_partition_list_add(pointer, partition.topic, partition.partition)!
        element.pointee.offset = offset ?? Int64(RD_KAFKA_OFFSET_INVALID)
    }

    /// Lends the list for the duration of `body`.
    func withListPointer<T>(_ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws -> T) rethrows -> T {
        try body(pointer)
    }

    /// Reads the entries of a list owned by someone else (a callback argument).
    static func entries(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [Entry] {
        guard let list, let elements = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = elements[index]
            return Entry(partition: TopicPartition(String(cString: element.topic), element.partition),
                         offset: element.offset, error: element.err)
        }
    }

    /// The entries of this list.
    var entries: [Entry] { Self.entries(of: pointer) }

    /// One entry as read back from C.
    struct Entry {
        /// The topic and partition.
        var partition: TopicPartition
        /// The offset field (`RD_KAFKA_OFFSET_INVALID` when unset).
        var offset: Int64
        /// The per-partition error field.
        var error: rd_kafka_resp_err_t
    }
}
