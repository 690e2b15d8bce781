import Foundation

/// Topics of one test on a shared cluster: jobs, events and a batch changelog of its own, the changelog with as many
/// partitions as the jobs topic, and a consumer group of its own.
struct ChangelogTopics {
    let run = String(UUID().uuidString.prefix(6))
    let name: String
    var jobs: String { "e2e.\(name)-\(run).jobs" }
    var events: String { "e2e.\(name)-\(run).events" }
    var batches: String { "e2e.\(name)-\(run).batches" }
    var group: String { "e2e-\(name)-\(run)" }

    /// The worker settings naming the changelog, with `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["ATTACHE_KAFKA_BATCHES_TOPIC": batches].merging(extra) { $1 }
    }

    func create(on cluster: any FaultyCluster, partitions: Int = 4, changelogPartitions: Int? = 4) async throws {
        try await cluster.createTopic(jobs, partitions: partitions, replicationFactor: 1)
        try await cluster.createTopic(events, partitions: partitions, replicationFactor: 1)
        if let changelogPartitions { try await cluster.createTopic(batches, partitions: changelogPartitions, replicationFactor: 1) }
    }

    /// librdkafka 2.16's mock cluster (one broker), shared by the suites whose workers hand batches over: its mock moves
    /// partitions cooperatively as Kafka does (2.0.2's drops the member that was there first when another joins).
    static let cluster = Task { () throws -> any FaultyCluster in
        let environment = try await EndToEndEnvironment.shared.value
        return try await ClusterKind.wheel.start(brokers: 1, workspace: environment.workspace)
    }
}
