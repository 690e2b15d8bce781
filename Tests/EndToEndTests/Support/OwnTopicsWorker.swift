import Foundation
import KafkaIO
import TestSupport

/// A worker of its own group on the shared broker, with jobs and events topics of its own (created by the worker), for
/// a suite that reads the whole of those topics back.
struct OwnTopicsWorker: Sendable {
    let process: ChildProcess
    let jobsTopic: String
    let eventsTopic: String

    /// Starts the worker and waits for its first assignment.
    static func start(_ name: String) async throws -> OwnTopicsWorker {
        let environment = try await EndToEndEnvironment.shared.value
        let run = UUID().uuidString.prefix(6)
        let jobs = "e2e.\(name)-\(run).jobs", events = "e2e.\(name)-\(run).events"
        let worker = try environment.startWorker(name: "worker-\(name)-\(run)", group: "e2e-\(name)-\(run)", jobsTopic: jobs,
                                                 eventsTopic: events, extra: ["ATTACHE_KAFKA_CREATE_TOPICS": "true"])
        _ = try await eventually("the worker's first assignment", timeout: .seconds(30)) {
            worker.standardError.contains("partitions assigned") ? true : nil
        }
        return OwnTopicsWorker(process: worker, jobsTopic: jobs, eventsTopic: events)
    }

    /// Produces one record to the worker's jobs topic, by a producer that takes records of up to 8 MB.
    @discardableResult
    func produce(_ value: String, key: String?, headers: [KafkaHeader] = []) async throws -> KafkaDeliveryReport {
        let environment = try await EndToEndEnvironment.shared.value
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: environment.brokers,
                                                                           properties: ["message.max.bytes": "8000000"]))
        let report = try await producer.send(KafkaProducerRecord(topic: jobsTopic, key: key.map { Data($0.utf8) }, value: Data(value.utf8),
                                                                 headers: headers))
        try? await producer.close()
        return report
    }

    /// The event records about `batchId` once one of them is of `type`.
    func records(of batchId: String, until type: String) async throws -> [(key: String, value: String, headers: String)] {
        let environment = try await EndToEndEnvironment.shared.value
        return try await eventually("\(type) for \(batchId)", timeout: .seconds(60)) {
            let records = try await Kcat.consume(brokers: environment.brokers, topic: eventsTopic).filter { $0.key == batchId }
            return records.contains { ReceivedEvent(json: $0.value)?.type == type } ? records : nil
        }
    }

    /// The status `/healthz` answers with.
    func health() async throws -> Int {
        guard let port = BrokerFaultTests.adminPort(in: process.standardError) else { throw EndToEndFailure("no admin port logged") }
        return try await BrokerFaultTests.status(of: "http://127.0.0.1:\(port)/healthz")
    }

    /// The group's committed offset of one jobs partition, from `/metrics`; nil before the first commit.
    func committedOffset(partition: Int32) async throws -> Int64? {
        guard let port = BrokerFaultTests.adminPort(in: process.standardError) else { throw EndToEndFailure("no admin port logged") }
        let text = try await Subprocess.run("/usr/bin/curl", ["-fsS", "--max-time", "5", "http://127.0.0.1:\(port)/metrics"]).outputText
        let prefix = #"attache_partition_committed_offset{partition="\#(partition)"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int64($0.dropFirst(prefix.count)) }
    }
}
