import Foundation
import KafkaIO

/// One mock cluster for all KafkaIO integration tests, started on first use; tests use unique topics and groups.
enum SharedMockCluster {
    private static let starting = Task { try await MockKafkaCluster.start(brokers: 3) }

    /// The running cluster.
    static func get() async throws -> MockKafkaCluster {
        try await starting.value
    }

    /// A name no other test uses.
    static func unique(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A new topic with `partitions` partitions in the shared cluster.
    static func topic(_ prefix: String, partitions: Int = 1) async throws -> (MockKafkaCluster, String) {
        let cluster = try await get()
        let name = unique(prefix)
        _ = try await cluster.createTopic(name, partitions: partitions)
        return (cluster, name)
    }

    /// Client configuration for the shared cluster; librdkafka's notices stay out of the test output.
    static func configuration(_ cluster: MockKafkaCluster, group: String? = nil,
                              properties: [String: String] = [:]) -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, groupID: group, clientID: "attache-tests",
                           properties: properties,
                           logHandler: { message in
                               if message.level <= 3 { print("librdkafka \(message.facility): \(message.message)") }
                           })
    }
}

extension KafkaRecordSequence {
    /// Reads exactly `count` records.
    func first(_ count: Int) async -> [KafkaRecord] {
        var result: [KafkaRecord] = []
        var iterator = makeAsyncIterator()
        while result.count < count, let record = await iterator.next() {
            result.append(record)
        }
        return result
    }
}

extension AsyncStream where Element == KafkaConsumerEvent {
    /// Waits for the first assignment that is not empty.
    func firstAssignment() async -> [TopicPartition] {
        for await event in self {
            if case .assigned(let partitions) = event, !partitions.isEmpty { return partitions }
        }
        return []
    }
}
