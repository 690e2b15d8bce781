import Foundation
import Testing
@testable import KafkaIO

/// Reading the group's committed offsets: the poll thread asks in tries that double in length until the deadline.
@Suite(.timeLimit(.minutes(1))) struct CommittedOffsetsTests {
    @Test func aCoordinatorSlowerThanTheFirstTriesStillAnswers() async throws {
        // Its own cluster: the slow round trips below would slow every test on a shared one.
        let cluster = try await MockKafkaCluster.start(brokers: 1)
        let topic = SharedMockCluster.unique("slow-coordinator")
        _ = try await cluster.createTopic(topic, partitions: 1)
        let partition = TopicPartition(topic, 0)
        try await SharedMockCluster.produce(3, to: topic, in: cluster)
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        consumer.markFinished(await consumer.records.first(3))
        try await consumer.commit()

        // Every answer now takes 1.2 s: the 250 ms and 500 ms tries time out, the 1 s one too, the 2 s one gets it.
        cluster.setRoundTripTime(1, milliseconds: 1200)
        let asked = ContinuousClock.now
        let committed = try await consumer.committedOffsets(for: [partition], timeout: .seconds(8))
        let took = asked.duration(to: .now)
        cluster.setRoundTripTime(1, milliseconds: 0)

        #expect(committed == [partition: 3])
        #expect(took >= .milliseconds(1200), "the answer cannot come sooner than the round trip")
        try await consumer.close()
    }
}
