import Foundation
import TestSupport
import Testing
@testable import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct ConsumerCommitTests {
    @Test func outOfOrderCompletionCommitsTheContiguousWatermarkAndTheNextMemberReplaysFromIt() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("watermark")
        let partition = TopicPartition(topic, 0)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        _ = await producer.send((0..<10).map {
            KafkaProducerRecord(topic: topic, key: "job", value: Data("\($0)".utf8))
        })
        try await producer.close()

        let group = SharedMockCluster.unique("group")
        let configuration = SharedMockCluster.configuration(cluster, group: group)
        let first = try KafkaConsumer(configuration: configuration, topics: [topic],
                                      options: KafkaConsumerOptions(commitInterval: nil))
        let delivered = await first.records.first(10)
        #expect(delivered.map(\.offset) == Array(0..<10))
        for offset in [4, 0, 9, 2, 7, 1, 5] {
            first.markFinished(delivered[offset])
        }
        try await first.commit()
        let committed = try await first.committedOffsets(for: [partition])
        try await first.close()

        let second = try KafkaConsumer(configuration: configuration, topics: [topic])
        let replayed = await second.records.first(7)
        let committedForSecond = try await second.committedOffsets(for: [partition])
        try await second.close()

        #expect(committed == [partition: 3])
        #expect(committedForSecond == [partition: 3])
        #expect(replayed.map(\.offset) == Array(3..<10))
        #expect(replayed.map(\.value) == (3..<10).map { Data("\($0)".utf8) })
    }

    /// A commit sent mid-rejoin would carry the old generation (see ``ConsumerPollLoop/rejoinWait``). The join state
    /// is set by hand here, with the statistics that would set it off.
    @Test func aCommitAskedForWhileTheGroupRejoinsWaitsForItToEndAndGivesUpIfItDoesNot() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("rejoin-hold")
        let partition = TopicPartition(topic, 0)
        try await SharedMockCluster.produce(3, to: topic, in: cluster)
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group"),
                                                           properties: ["statistics.interval.ms": "0"]),
            topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        let delivered = await consumer.records.first(3)
        consumer.markFinished(delivered[0...1])

        consumer.shared.state.withLock { $0.joinSteady = false }
        let asked = ContinuousClock.now
        var refusal: KafkaError?
        do { try await consumer.commit() } catch let error as KafkaError { refusal = error }
        #expect(refusal?.code == .groupRejoining)
        #expect(asked.duration(to: .now) >= ConsumerPollLoop.rejoinWait)
        #expect(try await consumer.committedOffsets(for: [partition]) == [:], "nothing was sent")

        consumer.shared.state.withLock { $0.joinSteady = false }
        let held = Task { try await consumer.commit() }
        consumer.shared.state.withLock { $0.joinSteady = true }
        try await waitFor("held to end") { await held.result }?.get()
        #expect(try await consumer.committedOffsets(for: [partition]) == [partition: 2])
        try await consumer.close()
    }

    @Test func theBackgroundCommitStoresTheWatermarkWithoutAnExplicitCommit() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("periodic")
        let partition = TopicPartition(topic, 0)
        try await SharedMockCluster.produce(4, to: topic, in: cluster)

        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic], options: KafkaConsumerOptions(commitInterval: .milliseconds(50)))
        let delivered = await consumer.records.first(4)
        consumer.markFinished(delivered[0...1])
        let committed = try await eventually("offset 2 to be committed", timeout: .seconds(30), every: .milliseconds(10)) {
            let committed = try await consumer.committedOffsets(for: [partition])
            return committed[partition] == 2 ? committed : nil
        }
        try await consumer.close()
        #expect(committed == [partition: 2])
    }

    @Test func committingWithNothingFinishedKeepsThePositionOfTheFirstDeliveredRecord() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("nothing-finished")
        let partition = TopicPartition(topic, 0)
        try await SharedMockCluster.produce(3, to: topic, in: cluster)

        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        _ = await consumer.records.first(3)
        try await consumer.commit()
        let committed = try await consumer.committedOffsets(for: [partition])
        try await consumer.close()
        #expect(committed == [partition: 0])
    }
}
