import DevServices
import Foundation
import KafkaIO
import TestSupport
import Testing
import WireFormat

/// Poison records against a dead-letter topic that is unkind: one that refuses every record, and records the
/// producer's defaults would refuse. Neither may wedge the partition, and a copy that does go out is exact.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DeadLetterTests {
    static let cluster = Task { try await MockKafkaCluster.start(brokers: 1) }

    private func topics(_ prefix: String) async throws -> (cluster: MockKafkaCluster, jobs: String, events: String, dlq: String) {
        let cluster = try await Self.cluster.value
        let run = UUID().uuidString.prefix(6)
        let names = ("\(prefix)-\(run).jobs", "\(prefix)-\(run).events", "\(prefix)-\(run).dlq")
        for topic in [names.0, names.1, names.2, EndToEndEnvironment.changelog(of: names.0)] {
            _ = try await cluster.createTopic(topic, partitions: 1)
        }
        return (cluster, names.0, names.1, names.2)
    }

    private func events(_ cluster: MockKafkaCluster, _ topic: String) async throws -> [ReceivedEvent] {
        try await Kcat.consume(brokers: cluster.bootstrapServers, topic: topic).compactMap { ReceivedEvent(json: $0.value) }
    }

    @Test func aDeadLetterTopicThatRefusesEveryRecordDoesNotWedgeThePartition() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let (cluster, jobs, events, dlq) = try await topics("dlq-refused")
        cluster.setTopicError(dlq, .topicAuthorizationFailed)
        let group = "\(jobs)-group"
        let extra = ["ATTACHE_KAFKA_DLQ_TOPIC": dlq, "ATTACHE_KAFKA_PROPERTY_MESSAGE_TIMEOUT_MS": "3000"]
        let worker = try environment.startWorker(name: "worker-\(jobs)", group: group, jobsTopic: jobs, eventsTopic: events,
                                                 brokers: cluster.bootstrapServers, extra: extra)
        try await Kcat.produce(brokers: cluster.bootstrapServers, topic: jobs, [
            (key: "poison", value: "this is not json"),
            (key: "after", value: Jobs.upload(batchId: "after", files: [
                Jobs.inline("f", name: "f.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 300, seed: 2)),
            ], send: "none")),
        ])
        let invalid = try await eventually("the invalid record's event", timeout: .seconds(90)) {
            try await self.events(cluster, events).first { $0.type == "attache.job.invalid" }
        }
        let outcome = try #require(invalid.data["dlq"]?.stringValue)
        #expect(outcome.hasPrefix("failed: "), "the event says the dead letter did not go out: \(outcome)")
        _ = try await eventually("the job behind it to complete", timeout: .seconds(60)) {
            try await self.events(cluster, events).contains { $0.subject == "after" && $0.type == "attache.batch.completed" } ? true : nil
        }
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
        #expect(worker.standardError.contains("the dead-letter topic refused an invalid record"), "logged as an error")

        // Committed: a fresh member does not take the poison record again.
        let successor = try environment.startWorker(name: "worker-\(jobs)-2", group: group, jobsTopic: jobs, eventsTopic: events,
                                                    brokers: cluster.bootstrapServers, extra: extra)
        try await Kcat.produce(brokers: cluster.bootstrapServers, topic: jobs, [(key: "marker", value: Jobs.upload(batchId: "marker", files: [
            Jobs.inline("m", name: "m.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 300, seed: 3)),
        ], send: "none"))])
        _ = try await eventually("the successor to process new work", timeout: .seconds(60)) {
            try await self.events(cluster, events).contains { $0.subject == "marker" && $0.type == "attache.batch.completed" } ? true : nil
        }
        #expect(try await self.events(cluster, events).filter { $0.type == "attache.job.invalid" }.count == 1)
        successor.signal(SIGTERM)
        _ = await successor.waitForExit(timeout: .seconds(30))
    }

    @Test func aLargeInvalidRecordGoesToTheDeadLetterTopicByteForByteWithEveryHeader() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let (cluster, jobs, events, dlq) = try await topics("dlq-large")
        let worker = try environment.startWorker(name: "worker-\(jobs)", group: "\(jobs)-group", jobsTopic: jobs, eventsTopic: events,
                                                 brokers: cluster.bootstrapServers, extra: ["ATTACHE_KAFKA_DLQ_TOPIC": dlq])
        defer { worker.signal(SIGTERM) }
        // Over the 1 MB a producer accepts by default, well within what a consumer fetches.
        let value = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let headers = [KafkaHeader("trace", "t-1"), KafkaHeader("empty", Data()), KafkaHeader("none", nil),
                       KafkaHeader(rawName: Array("with\u{0}nul".utf8), Data("v".utf8))]
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers,
                                                                           properties: ["message.max.bytes": "3000000"]))
        _ = try await producer.send(topic: jobs, key: Data("big".utf8), value: value, headers: headers)

        let invalid = try await eventually("the invalid record's event", timeout: .seconds(60)) {
            try await self.events(cluster, events).first { $0.type == "attache.job.invalid" }
        }
        #expect(invalid.data["dlq"] == "ok")
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers,
                                                                           groupID: "\(dlq)-reader", properties: [:]),
                                         topics: [dlq])
        let letter = try #require(await waitFor("the dead letter", timeout: .seconds(60)) {
            var records = consumer.records.makeAsyncIterator()
            return await records.next()
        } ?? nil)
        #expect(letter.value == value, "the value byte for byte")
        #expect(letter.key == Data("big".utf8))
        #expect(Array(letter.headers.prefix(headers.count)) == headers, "original headers, empty and null values and NUL in names kept")
        #expect(letter.headers.dropFirst(headers.count).map(\.name) ==
                ["attache.source.topic", "attache.source.partition", "attache.source.offset", "attache.error"])
        try await consumer.close()
    }
}
