
/// Every record a topic holds now, read partition by partition up to the end offsets seen when each read began,
/// outside any consumer group (the mock cluster makes a new group wait seconds for its first rebalance, and a
/// command has nothing to commit).
public enum TopicSnapshot {
    /// The records of `topic`, partition by partition, each in offset order.
    ///
    /// - Throws: ``TopicMissing`` when the topic does not exist; ``KafkaError`` when a partition cannot be read.
    public static func records(of topic: String, kafka: KafkaConfiguration) async throws -> [KafkaRecord] {
        try await read(topic, kafka: kafka).records
    }

    /// The records of `topic` and, per partition, the end offset the read stopped at (where following it goes on).
    public static func read(_ topic: String, kafka: KafkaConfiguration) async throws -> (records: [KafkaRecord], ends: [Int32: Int64]) {
        var records: [KafkaRecord] = []
        let ends = try await read(topic, kafka: kafka) { records += $0 }
        return (records, ends)
    }

    /// Hands the records of `topic` to `handle` as they are read, partition by partition, without holding them;
    /// returns each partition's end offset the read stopped at.
    public static func read(_ topic: String, kafka: KafkaConfiguration,
                            handle: ([KafkaRecord]) async throws -> Void) async throws -> [Int32: Int64] {
        let admin = try KafkaTopicAdmin(configuration: kafka)
        guard let partitions = try await admin.partitionCount(of: topic) else { throw TopicMissing(topic: topic) }
        let reader = try KafkaPartitionReader(configuration: kafka)
        var ends: [Int32: Int64] = [:]
        for partition in 0..<Int32(partitions) {
            let outcome = try await reader.readToEnd(topic: topic, partition: partition, from: 0, handle: handle)
            switch outcome {
            case .completed(let summary): ends[partition] = summary.endOffset
            case .aheadOfTopic(let end): ends[partition] = end
            }
        }
        return ends
    }

    /// The topic asked for does not exist.
    public struct TopicMissing: Error, CustomStringConvertible {
        public let topic: String
        public var description: String { "topic \(topic) does not exist" }
    }
}
