import Foundation
import KafkaIO
import Testing
import TestSupport

/// A Kafka cluster a test can make misbehave, whichever librdkafka build serves it.
protocol FaultyCluster: Sendable {
    var bootstrapServers: String { get }
    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) async throws
    func pushRequestErrors(_ api: String, _ codes: [MockKafkaCluster.ProtocolError]) async throws
    func setBrokerDown(_ broker: Int32) async throws
    func setBrokerUp(_ broker: Int32) async throws
    func setRoundTripTime(_ broker: Int32, milliseconds: Int) async throws
    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) async throws
    func setGroupCoordinator(group: String, broker: Int32) async throws
}

/// The brokers a fault suite runs against.
enum ClusterKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// librdkafka 2.0.2's mock cluster in the test process (Debian's librdkafka, the one Attache links).
    case debian
    /// librdkafka 2.16's mock cluster from the confluent-kafka wheel, in a Python process of its own.
    case wheel

    var testDescription: String { self == .debian ? "librdkafka 2.0.2 mock, in process" : "librdkafka 2.16 mock, own process" }

    func start(brokers: Int, workspace: URL) async throws -> any FaultyCluster {
        switch self {
        case .debian: InProcessCluster(cluster: try await MockKafkaCluster.start(brokers: brokers))
        case .wheel: try await ProcessCluster(brokers: brokers, workspace: workspace)
        }
    }
}

/// KafkaIO's mock cluster, driven through its fault API.
struct InProcessCluster: FaultyCluster {
    let cluster: MockKafkaCluster

    var bootstrapServers: String { cluster.bootstrapServers }

    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) async throws {
        _ = try await cluster.createTopic(name, partitions: partitions, replicationFactor: replicationFactor)
    }

    func pushRequestErrors(_ api: String, _ codes: [MockKafkaCluster.ProtocolError]) async throws {
        let apis: [String: MockKafkaCluster.API] = ["produce": .produce, "fetch": .fetch, "offsetcommit": .offsetCommit,
                                                    "heartbeat": .heartbeat]
        cluster.pushRequestErrors(try #require(apis[api]), codes)
    }

    // A broker going down closes its listener and binds its port again at once, and coming up listens on it: a
    // child being started at either moment would hold the old listener open and make the new one fail, which the
    // mock treats as fatal (an assertion that aborts the test process). Neither overlaps a start.
    func setBrokerDown(_ broker: Int32) async throws { Subprocess.excludingStarts { cluster.setBrokerDown(broker) } }
    func setBrokerUp(_ broker: Int32) async throws { Subprocess.excludingStarts { cluster.setBrokerUp(broker) } }
    func setRoundTripTime(_ broker: Int32, milliseconds: Int) async throws { cluster.setRoundTripTime(broker, milliseconds: milliseconds) }
    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) async throws {
        cluster.setPartitionLeader(topic: topic, partition: partition, broker: broker)
    }
    func setGroupCoordinator(group: String, broker: Int32) async throws { cluster.setGroupCoordinator(group: group, broker: broker) }
}

/// `mock_kafka.py` from the test venv: another librdkafka build's mock cluster, in another process, taking fault
/// commands on standard input and answering each with a line.
final class ProcessCluster: FaultyCluster {
    let bootstrapServers: String
    private let process: ChildProcess
    private let answered = Locked(0)

    init(brokers: Int, workspace: URL) async throws {
        let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".venv/bin/python").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("mock_kafka.py").path
        process = try ChildProcess(name: "mock-kafka-\(UUID().uuidString.prefix(6))", executable: python,
                                   arguments: [script, "--brokers", String(brokers)], directory: workspace, takesInput: true)
        bootstrapServers = try await process.firstLine(timeout: .seconds(20))
    }

    deinit { try? process.input?.close() }

    /// Sends one command and waits for its answer.
    private func send(_ words: String...) async throws {
        let expected = answered.update { count -> Int in
            count += 1
            return count
        }
        process.input?.write(Data((words.joined(separator: " ") + "\n").utf8))
        let answer = try await eventually("mock_kafka.py to answer \(words.joined(separator: " "))", timeout: .seconds(10),
                                          every: .milliseconds(20)) { () -> String? in
            let lines = self.process.standardOutput.split(separator: "\n")
            return lines.count > expected ? String(lines[expected]) : nil
        }
        guard answer == "ok" else { throw EndToEndFailure("mock_kafka.py: \(words.joined(separator: " ")): \(answer)") }
    }

    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) async throws {
        try await send("topic", name, String(partitions), String(replicationFactor))
    }

    func pushRequestErrors(_ api: String, _ codes: [MockKafkaCluster.ProtocolError]) async throws {
        try await send("errors", api, codes.map { String($0.rawValue) }.joined(separator: ","))
    }

    func setBrokerDown(_ broker: Int32) async throws { try await send("down", String(broker)) }
    func setBrokerUp(_ broker: Int32) async throws { try await send("up", String(broker)) }
    func setRoundTripTime(_ broker: Int32, milliseconds: Int) async throws { try await send("rtt", String(broker), String(milliseconds)) }
    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) async throws {
        try await send("leader", topic, String(partition), String(broker))
    }
    func setGroupCoordinator(group: String, broker: Int32) async throws { try await send("coordinator", group, String(broker)) }
}
