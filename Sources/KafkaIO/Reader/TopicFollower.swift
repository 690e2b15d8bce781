
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

    /// Finds each topic's partitions, then follows them all; the stream's first element comes once every read of
    /// an existing topic has begun (the end offsets of the sources read from their end are fixed by then). A topic
    /// that does not exist yet (a cluster whose workers have not published anything) is waited for and, once it
    /// appears, read from its beginning: nothing in it predates the follow.
    public static func follow(_ sources: [Source], kafka: KafkaConfiguration) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let admin = try KafkaTopicAdmin(configuration: kafka)
                    let reader = try KafkaPartitionReader(configuration: kafka)
                    var partitions: [(String, Int32, Int64?)] = []
                    var missing: [String] = []
                    for source in sources {
                        guard let count = try await admin.partitionCount(of: source.topic) else {
                            missing.append(source.topic)
                            continue
                        }
                        for partition in 0..<Int32(count) {
                            partitions.append((source.topic, partition, try await startOffset(source, partition, reader)))
                        }
                    }
                    continuation.yield(.started)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        @Sendable func follow(_ topic: String, _ partition: Int32, from offset: Int64?) async throws {
                            try await reader.follow(topic: topic, partition: partition, from: offset) { records in
                                for record in records { continuation.yield(.record(record)) }
                            }
                        }
                        for (topic, partition, offset) in partitions {
                            group.addTask { try await follow(topic, partition, from: offset) }
                        }
                        for topic in missing {
                            continuation.yield(.waiting(for: topic))
                            group.addTask {
                                let count = try await partitionCount(of: topic, admin: admin)
                                try await withThrowingTaskGroup(of: Void.self) { inner in
                                    for partition in 0..<Int32(count) {
                                        inner.addTask { try await follow(topic, partition, from: 0) }
                                    }
                                    try await inner.waitForAll()
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

    /// A topic's partition count, waiting for the topic to exist: a cluster whose workers have not published yet
    /// has no events topic (workers create it, or the broker does on their first record). Topic creation sends no
    /// notice to other clients, so the metadata is asked for again every second.
    private static func partitionCount(of topic: String, admin: KafkaTopicAdmin) async throws -> Int {
        while true {
            try await Task.sleep(for: .seconds(1))
            if let count = try await admin.partitionCount(of: topic) { return count }
        }
    }

    /// What the stream carries.
    public enum Element: Sendable {
        /// The topic does not exist yet; it is followed from its beginning once it does.
        case waiting(for: String)
        /// Every partition is being read.
        case started
        case record(KafkaRecord)
    }
}
