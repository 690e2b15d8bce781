import CRdKafka

/// An in-process Kafka cluster (librdkafka's mock cluster) with real TCP listeners on 127.0.0.1.
///
/// Any Kafka client can use ``bootstrapServers`` — ours, kcat, another process — for produce, fetch, consumer
/// groups, offset commits and idempotent producers. Limits of librdkafka 2.0.2's mock: each broker listens on an
/// ephemeral port (the port cannot be chosen); there is no CreateTopics API (topics are created with
/// ``createTopic(_:partitions:replicationFactor:)`` or automatically, with 4 partitions, on first use — any
/// Metadata request naming a topic creates it, since the mock speaks Metadata v2 only, which has no
/// `AllowAutoTopicCreation` flag); a partition keeps about 5 MB and drops its oldest batches beyond that (the log
/// start moves); a consumer group's first rebalance waits about 3 s.
public final class MockKafkaCluster: Sendable {
    /// `127.0.0.1:port` of every broker, comma-separated.
    public let bootstrapServers: String
    /// How many brokers the cluster has.
    public let brokerCount: Int
    let cluster: RDMockCluster

    /// Starts a cluster of `brokers` brokers. Blocks briefly while the broker threads start; from async code
    /// use ``start(brokers:)``.
    public init(brokers: Int = 3) throws(KafkaError) {
        let cluster = try RDMockCluster(brokers: brokers)
        self.cluster = cluster
        self.brokerCount = brokers
        self.bootstrapServers = cluster.withClusterPointer { String(cString: rd_kafka_mock_cluster_bootstraps($0)) }
    }

    /// Starts a cluster on a dedicated thread and returns it.
    public static func start(brokers: Int = 3) async throws -> MockKafkaCluster {
        try await DedicatedThread.run(name: "rdkafka-mock-start") {
            Result { () throws(KafkaError) in try MockKafkaCluster(brokers: brokers) }
        }
    }

    /// Creates a topic in the mock cluster; an existing topic is reported as ``TopicCreation/alreadyExists``.
    ///
    /// - Throws: ``KafkaError`` if the mock refuses (e.g. a replication factor above the broker count).
    public func createTopic(_ name: String, partitions: Int, replicationFactor: Int = 1) async throws -> TopicCreation {
        let cluster = self.cluster
        return try await DedicatedThread.run(name: "rdkafka-mock-topic") {
            let code = cluster.withClusterPointer {
                rd_kafka_mock_topic_create($0, name, Int32(clamping: partitions), Int32(clamping: replicationFactor))
            }
            return TopicCreation.outcome(libraryCode: code.rawValue, message: nil)
        }
    }
}
