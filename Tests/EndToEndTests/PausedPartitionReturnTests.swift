import Foundation
import KafkaIO
import TestSupport
import Testing

/// A member whose intake was paused loses a partition to a member that joins, resumes, and gets the partition back
/// when that member leaves: the 1 → 3 → 1 scale-in of DESIGN §4.1. librdkafka keeps a partition's pause across a
/// revoke, so a partition paused during its first assignment came back paused while the consumer believed it was
/// fetching, and the records the leaving member had not applied were never read again (a wedged partition: the
/// scale bench lost 7 of 150 jobs that way). The brokers are librdkafka 2.16's mock, in its own process, whose group
/// coordinator hands partitions over promptly; the clients are the librdkafka Attache links.
@Suite(.timeLimit(.minutes(3))) struct PausedPartitionReturnTests {
    @Test func aPartitionPausedBeforeItWasRevokedIsFetchedWhenItComesBack() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await ClusterKind.wheel.start(brokers: 1, workspace: environment.workspace)
        let run = UUID().uuidString.prefix(6)
        let topic = "pause-return-\(run)", group = "pause-return-\(run)"
        try await cluster.createTopic(topic, partitions: 2, replicationFactor: 1)
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers))
        func produceOneToEach(_ label: String) async throws {
            let results = await producer.send((0..<2).map {
                KafkaProducerRecord(topic: topic, key: nil, value: Data("\(label)-\($0)".utf8), partition: Int32($0))
            })
            for result in results { _ = try result.get() }
        }
        func member() throws -> KafkaConsumer {
            let configuration = KafkaConfiguration(
                bootstrapServers: cluster.bootstrapServers, groupID: group,
                properties: ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"])
            return try KafkaConsumer(configuration: configuration, topics: [topic])
        }
        try await produceOneToEach("before")

        let first = try member()
        let seen = Locked<[String]>([])
        let reader = Task {
            for await record in first.records {
                seen.update { $0.append(String(decoding: record.value ?? Data(), as: UTF8.self)) }
                first.markFinished(record)
            }
        }
        _ = try await eventually("the first member to read both partitions", timeout: .seconds(60)) {
            seen.value.count == 2 ? true : nil
        }
        // The worker's intake pauses when its batches or transfers are at their limits. The commit goes through the
        // poll thread after the pause, so the pause is applied once it returns.
        first.pause()
        try await first.commit()

        let second = try member()
        _ = try await eventually("the joining member to take one partition", timeout: .seconds(60)) {
            first.assignment.count == 1 && second.assignment.count == 1 ? true : nil
        }
        first.resume()
        try await first.commit()
        let returning = try #require(second.assignment.first)
        try await second.close()
        _ = try await eventually("the partition to come back to the first member", timeout: .seconds(60)) {
            first.assignment.count == 2 ? true : nil
        }

        try await produceOneToEach("after")
        let read = await eventually(within: .seconds(20)) { seen.value.count == 4 }
        let records = seen.value
        reader.cancel()
        try await first.close()
        try await producer.close()

        #expect(read, "read after the partition came back: \(records)")
        #expect(Set(records) == ["before-0", "before-1", "after-0", "after-1"],
                "the returned partition \(returning.partition) must be fetched again")
    }
}
