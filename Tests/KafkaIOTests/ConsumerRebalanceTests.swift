import Foundation
import Synchronization
import Testing
import KafkaIO

/// Off unless `ATTACHE_REBALANCE_TESTS` is set: librdkafka 2.0.2's mock cluster times group rebalances loosely, and
/// under a loaded machine these tests see a second rebalance mid-test. Rebalances stay covered end to end by the
/// worker crash test (`WorkerResilienceTests`), which kills a member and checks the survivor finishes every job.
@Suite(.timeLimit(.minutes(2)), .enabled(if: ProcessInfo.processInfo.environment["ATTACHE_REBALANCE_TESTS"] != nil))
struct ConsumerRebalanceTests {
    /// What the first member's revoke hook saw.
    final class RevokeRecorder: Sendable {
        let revoked = Mutex<[[TopicPartition]]>([])
        let finishInHook = Mutex<[KafkaRecord]>([])
    }

    @Test func aJoiningMemberTakesPartitionsFromTheWatermarkCommittedAfterTheRevokeHook() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("rebalance", partitions: 4)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        _ = await producer.send((0..<4).flatMap { partition in
            (0..<3).map { KafkaProducerRecord(topic: topic, key: nil, value: Data("\(partition)-\($0)".utf8),
                                              partition: Int32(partition)) }
        })
        try await producer.close()

        let group = SharedMockCluster.unique("group")
        let recorder = RevokeRecorder()
        let holder = Mutex<KafkaConsumer?>(nil)
        // No background commits: this test decides when the first member commits (see the next test).
        let first = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                      topics: [topic], options: KafkaConsumerOptions(commitInterval: nil)) { partitions, _ in
            // The owner finishes what it can for the revoked partitions before they are committed and released.
            let consumer = holder.withLock { $0 }
            let finishing = recorder.finishInHook.withLock { $0 }.filter { partitions.contains($0.topicPartition) }
            consumer?.markFinished(finishing)
            recorder.revoked.withLock { $0.append(partitions) }
        }
        holder.withLock { $0 = first }
        let firstRecords = await first.records.first(12)
        // Offset 0 finished before the rebalance, offset 1 inside the hook, offset 2 never: the next owner must
        // start at offset 2.
        first.markFinished(firstRecords.filter { $0.offset == 0 })
        recorder.finishInHook.withLock { $0 = firstRecords.filter { $0.offset == 1 } }
        try await first.commit()

        let second = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                       topics: [topic])
        let moved = await second.events.firstAssignment()
        let secondRecords = await second.records.first(moved.count)
        let committed = try await second.committedOffsets(for: moved)
        let firstAssignment = first.assignment
        let revoked = recorder.revoked.withLock { $0 }
        try await second.close()
        try await first.close()

        #expect(!moved.isEmpty && moved.count < 4)
        #expect(revoked.first.map(Set.init) == Set(moved))
        #expect(Set(firstAssignment).isDisjoint(with: moved))
        #expect(Set(firstAssignment).union(moved).count == 4)
        #expect(committed == Dictionary(uniqueKeysWithValues: moved.map { ($0, Int64(2)) }))
        #expect(Set(secondRecords.map(\.topicPartition)) == Set(moved))
        #expect(secondRecords.allSatisfy { $0.offset == 2 })
    }

    @Test func recordsOfARevokedPartitionNoLongerMoveItsWatermark() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("stale-finish", partitions: 2)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        _ = await producer.send((0..<2).map {
            KafkaProducerRecord(topic: topic, key: nil, value: Data("\($0)".utf8), partition: Int32($0))
        })
        try await producer.close()

        let group = SharedMockCluster.unique("group")
        // No background commits: a commit that crosses the rebalance is answered ILLEGAL_GENERATION and
        // librdkafka then declares the whole assignment lost, which is not what this test is about.
        let first = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                      topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        let delivered = await first.records.first(2)
        let second = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                       topics: [topic])
        let moved = try #require(await second.events.firstAssignment().first)
        // Finishing the moved partition's record after the revoke must not commit on behalf of the new owner.
        first.markFinished(delivered.filter { $0.topicPartition == moved })
        try await first.commit()
        let committed = try await second.committedOffsets(for: [moved])
        try await second.close()
        try await first.close()
        #expect(committed[moved] == nil)
    }
}
