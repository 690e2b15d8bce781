import Foundation
import TestSupport
import Testing
import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct ConsumerGenerationTests {
    @Test func theGroupGenerationGrowsWithEveryRebalanceAMemberTakesPartIn() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("generation", partitions: 4)
        let group = SharedMockCluster.unique("group")
        let first = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                      topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        #expect(first.groupGeneration == nil)
        _ = await first.events.firstAssignment()
        let joined = try #require(first.groupGeneration)

        let second = try KafkaConsumer(configuration: SharedMockCluster.configuration(cluster, group: group),
                                       topics: [topic], options: KafkaConsumerOptions(commitInterval: nil))
        let moved = await second.events.firstAssignment()
        let secondJoined = try #require(second.groupGeneration)
        try await second.close()

        // The partitions come back to the first member in the rebalance after the second one left.
        let regained = await waitFor("the partitions to come back to the first member", timeout: .seconds(60)) { () -> Int32? in
            for await event in first.events {
                if case .assigned(let partitions) = event, !Set(partitions).isDisjoint(with: moved) {
                    return first.groupGeneration
                }
            }
            return nil
        } ?? nil
        try await first.close()

        #expect(joined >= 1)
        #expect(!moved.isEmpty)
        #expect(secondJoined > joined)
        #expect(try #require(regained) > secondJoined)
    }
}
