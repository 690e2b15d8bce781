import KafkaIO

/// Every partition of some topics followed live outside any consumer group, merged into one stream: records of one
/// partition keep their order; partitions interleave. Ends with an error when a topic is missing or a read fails;
/// cancelling the consuming task (or dropping the stream) stops every read.
public enum TopicFollower {
    /// One topic to follow and where in each partition.
    public struct Source: Sendable {
        public enum Start: Sendable {
            /// The log start.
            case beginning
            /// The end offset when the follow begins.
            case end
            /// Given offsets per partition (the ends of an earlier read); a partition not listed starts at its log start.
            case offsets([Int32: Int64])
        }

        public var topic: String
        public var start: Start

        public init(topic: String, start: Start) {
            self.topic = topic
            self.start = start
        }

        func offset(of partition: Int32) -> Int64? {
            switch start {
            case .beginning: 0
            case .end: nil
            case .offsets(let offsets): offsets[partition] ?? 0
            }
        }
    }

    /// Finds each topic's partitions, then follows them all; the stream's first element comes once every read has
    /// begun (the end offsets of the sources read from their end are fixed by then).
    public static func follow(_ sources: [Source], kafka: KafkaConfiguration) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let admin = try KafkaTopicAdmin(configuration: kafka)
                    let reader = try KafkaPartitionReader(configuration: kafka)
                    var partitions: [(String, Int32, Int64?)] = []
                    for source in sources {
                        guard let count = try await admin.partitionCount(of: source.topic) else {
                            throw TopicSnapshot.TopicMissing(topic: source.topic)
                        }
                        for partition in 0..<Int32(count) {
                            partitions.append((source.topic, partition, try await startOffset(source, partition, reader)))
                        }
                    }
                    continuation.yield(.started)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for (topic, partition, offset) in partitions {
                            group.addTask {
                                try await reader.follow(topic: topic, partition: partition, from: offset) { records in
                                    for record in records { continuation.yield(.record(record)) }
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Where a partition's follow starts; `.end` is fixed here, before the stream reports `started`, so no record
    /// appended after that is missed.
    private static func startOffset(_ source: Source, _ partition: Int32, _ reader: KafkaPartitionReader) async throws -> Int64? {
        guard case .end = source.start else { return source.offset(of: partition) }
        // A read from past the end reads nothing and answers with the end offset.
        if case .aheadOfTopic(let end) = try await reader.readToEnd(topic: source.topic, partition: partition, from: .max, handle: { _ in }) {
            return end
        }
        return nil
    }

    /// What the stream carries.
    public enum Element: Sendable {
        /// Every partition is being read.
        case started
        case record(KafkaRecord)
    }
}
