import Foundation
import Testing
import TestSupport
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

    /// Writes `count` one-byte records (0, 1, …) to `topic`; throws unless every one was stored.
    static func produce(_ count: Int, to topic: String, in cluster: MockKafkaCluster) async throws {
        let producer = try KafkaProducer(configuration: configuration(cluster))
        let results = await producer.send((0..<count).map {
            KafkaProducerRecord(topic: topic, key: nil, value: Data([UInt8($0)]))
        })
        try await producer.close()
        for result in results { _ = try result.get() }
    }

    /// Client configuration for the shared cluster; librdkafka's notices stay out of the test output
    /// (`KAFKA_DEBUG=cgrp,…` turns librdkafka's debug contexts on and prints them).
    ///
    /// Group members use a 4 s session: after a member leaves, 2.0.2's mock delays the next rebalance by the
    /// session timeout minus one second (44 s with librdkafka's default); a session shorter than the mock's 3 s
    /// initial rebalance delay gets the joining member evicted before it is ever assigned.
    static func configuration(_ cluster: MockKafkaCluster, group: String? = nil,
                              properties: [String: String] = [:]) -> KafkaConfiguration {
        let debug = ProcessInfo.processInfo.environment["KAFKA_DEBUG"]
        var resolved = group == nil ? [:] : ["session.timeout.ms": "4000", "heartbeat.interval.ms": "300"]
        resolved.merge(properties) { _, explicit in explicit }
        if let debug { resolved["debug"] = debug }
        return KafkaConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupID: group, clientID: "attache-tests",
            properties: resolved,
            logHandler: { message in
                if message.level <= 3 || debug != nil {
                    print("\(Date().timeIntervalSince1970) librdkafka \(message.facility): \(message.message)")
                }
            })
    }
}

extension KafkaRecordSequence {
    /// Reads exactly `count` records — or, after 60 s, what arrived, with an issue recorded.
    func first(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [KafkaRecord] {
        await waitFor("\(count) records", timeout: .seconds(60), sourceLocation: sourceLocation) { [self] in
            var result: [KafkaRecord] = []
            var iterator = makeAsyncIterator()
            while result.count < count, let record = await iterator.next() {
                result.append(record)
            }
            return result
        } ?? []
    }
}

extension AsyncStream where Element == KafkaConsumerEvent {
    /// Waits for the first assignment that is not empty (at most 60 s: then an issue is recorded).
    func firstAssignment(sourceLocation: SourceLocation = #_sourceLocation) async -> [TopicPartition] {
        await waitFor("a first assignment", timeout: .seconds(60), sourceLocation: sourceLocation) { [self] in
            for await event in self {
                if case .assigned(let partitions) = event, !partitions.isEmpty { return partitions }
            }
            return []
        } ?? []
    }
}
