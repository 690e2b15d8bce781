import Foundation
import KafkaIO
import TestSupport
import Testing

/// kcat is a Kafka client we did not write; it talks to the mock cluster over its TCP listeners.
@Suite(.timeLimit(.minutes(2))) struct KcatInteroperabilityTests {
    private static func kcat(_ arguments: [String], input: String = "") async throws -> (status: Int32, output: String) {
        let run = try await Subprocess.run("/usr/bin/kcat", arguments, input: Data(input.utf8))
        return (run.status, run.outputText)
    }

    @Test func aRecordProducedByKcatIsConsumedWithItsKeyAndHeader() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("from-kcat")
        let produced = try await Self.kcat(["-b", cluster.bootstrapServers, "-P", "-t", topic, "-k", "trip-42",
                                      "-H", "origin=kcat"], input: "{\"kind\":\"upload\"}\n")
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic])
        let record = try #require(await consumer.records.first(1).first)
        try await consumer.close()

        #expect(produced.status == 0)
        #expect(record.keyString == "trip-42")
        #expect(record.value == Data("{\"kind\":\"upload\"}".utf8))
        #expect(record.header("origin")?.stringValue == "kcat")
    }

    @Test func kcatReadsARecordWeProduced() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("to-kcat")
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let report = try await producer.send(topic: topic, key: Data("trip-7".utf8), value: Data("hello".utf8),
                                             headers: [KafkaHeader("attache.error", "none")])
        try await producer.close()
        let consumed = try await Self.kcat(["-b", cluster.bootstrapServers, "-C", "-t", topic, "-o", "beginning",
                                      "-c", "1", "-e", "-f", "%k|%s|%p|%o|%h\n"])
        #expect(consumed.status == 0)
        #expect(consumed.output == "trip-7|hello|\(report.partition)|\(report.offset)|attache.error=none\n")
    }
}
