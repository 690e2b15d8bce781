import DevServices
import Foundation
import KafkaIO
import TestSupport
import Testing

/// The real worker against a three-broker cluster that misbehaves while jobs flow: request errors on produce,
/// fetch, offset commits and heartbeats, a broker down for seconds, partition leaders and the group coordinator
/// moving, slow round trips. Nothing may be lost, committed early, done twice, or logged as an error.
@Suite(.serialized, .timeLimit(.minutes(10))) struct BrokerFaultTests {
    static let jobsTopic = "faults.jobs", eventsTopic = "faults.events", dlqTopic = "faults.dlq", group = "faults"
    static let partitions: Int32 = 6

    @Test(arguments: ClusterKind.allCases)
    func everyJobCompletesAndIsCommittedOnceThroughBrokerFaults(_ kind: ClusterKind) async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await kind.start(brokers: 3, workspace: environment.workspace)
        for topic in [Self.jobsTopic, Self.eventsTopic, Self.dlqTopic, EndToEndEnvironment.changelog(of: Self.jobsTopic)] {
            try await cluster.createTopic(topic, partitions: Int(Self.partitions), replicationFactor: 3)
        }
        let brokers = cluster.bootstrapServers
        let run = UUID().uuidString.prefix(6)
        var extra = ["ATTACHE_KAFKA_DLQ_TOPIC": Self.dlqTopic, "ATTACHE_LOG_LEVEL": "debug"]
        // KAFKA_DEBUG=cgrp,fetch,… turns librdkafka's debug contexts on in the worker, for looking into a failure.
        if let debug = ProcessInfo.processInfo.environment["KAFKA_DEBUG"] { extra["ATTACHE_KAFKA_PROPERTY_DEBUG"] = debug }
        let worker = try environment.startWorker(name: "worker-faults-\(run)", group: Self.group, jobsTopic: Self.jobsTopic,
                                                 eventsTopic: Self.eventsTopic, brokers: brokers, extra: extra)
        var batches: [String] = []
        func wave(_ range: Range<Int>) async throws {
            let records = range.map { index -> (key: String, value: String) in
                let batchId = "faults-\(run)-\(index)"
                batches.append(batchId)
                return (key: batchId, value: Jobs.upload(batchId: batchId, files: [
                    Jobs.inline("f", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 2048, seed: index)),
                ]))
            }
            try await Kcat.produce(brokers: brokers, topic: Self.jobsTopic, records)
        }

        try await wave(0..<40)
        _ = try await eventually("the worker to take its partitions", timeout: .seconds(60)) {
            worker.standardError.contains("partitions assigned") ? true : nil
        }
        // Request errors, consumed by whichever client sends the next request of that kind.
        try await cluster.pushRequestErrors("produce", [.notLeaderForPartition, .requestTimedOut, .notEnoughReplicas, .leaderNotAvailable,
                                                        .kafkaStorageError, .notLeaderForPartition])
        try await cluster.pushRequestErrors("fetch", [.notLeaderForPartition, .unknownTopicOrPartition, .leaderNotAvailable])
        try await cluster.pushRequestErrors("offsetcommit", [.coordinatorNotAvailable, .notCoordinator, .requestTimedOut,
                                                             .coordinatorLoadInProgress])
        try await cluster.pushRequestErrors("heartbeat", [.notCoordinator, .coordinatorNotAvailable])
        try await cluster.setRoundTripTime(3, milliseconds: 150)
        try await Task.sleep(for: .seconds(2))

        // A leader broker goes away for a few seconds while more work arrives.
        try await cluster.takeBrokerDown(2, for: .seconds(3))
        try await wave(40..<80)

        // Leadership and the coordinator move.
        for partition in 0..<Self.partitions {
            let leader = (partition + 1) % 3 + 1
            try await cluster.setPartitionLeader(topic: Self.jobsTopic, partition: partition, broker: leader)
            try await cluster.setPartitionLeader(topic: Self.eventsTopic, partition: partition, broker: (leader % 3) + 1)
        }
        try await cluster.setGroupCoordinator(group: Self.group, broker: 3)
        try await cluster.pushRequestErrors("produce", [.notLeaderForPartition, .requestTimedOut])
        try await cluster.pushRequestErrors("offsetcommit", [.notCoordinator, .coordinatorNotAvailable])
        try await Task.sleep(for: .seconds(2))
        try await cluster.setRoundTripTime(3, milliseconds: 0)
        try await wave(80..<120)

        let expected = Set(batches)
        let deadline = ContinuousClock.now + .seconds(120)
        var events: [ReceivedEvent] = []
        while true {
            events = try await Self.events(brokers)
            let sent = Set(events.filter { $0.type == "attache.message.sent" }.map(\.subject))
            if expected.isSubset(of: sent) { break }
            if ContinuousClock.now > deadline {
                let missing = expected.subtracting(sent).sorted()
                let captured = Set(environment.services.messages.requests.compactMap { request -> String? in
                    if case .string(let id) = request.message?.data.metadata?["batchId"] { return id }
                    return nil
                })
                // Whether the job is in the jobs topic at all tells a worker that lost or stalled it from a produce
                // that never landed.
                // The partition and offset of each missing job, and the worker's own view of every partition (end,
                // committed, lag, in flight), tell a partition it stopped fetching from a pipeline that stalled.
                let placed = try await Kcat.readFromStart(brokers: brokers, topic: Self.jobsTopic, format: ["-f", "%k %p:%o\n"])
                let place = Dictionary(placed.split(separator: "\n").compactMap { line -> (String, String)? in
                    let parts = line.split(separator: " ")
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { first, _ in first })
                let detail = missing.prefix(10).map { batchId in
                    "\(batchId): job record at \(place[batchId] ?? "nowhere"), events \(events.filter { $0.subject == batchId }.map(\.type)), "
                        + "message captured: \(captured.contains(batchId))"
                }
                var metrics = ""
                if let port = Self.adminPort(in: worker.standardError) {
                    metrics = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "5", "http://127.0.0.1:\(port)/metrics"]).outputText
                }
                let partitionLines = metrics.split(separator: "\n").filter { line in
                    !line.hasPrefix("#") && ["partition_", "inflight", "pending", "restoring", "consumer_lag"].contains { line.contains($0) }
                }
                Issue.record("""
                    \(missing.count) batches without message.sent:
                    \(detail.joined(separator: "\n"))
                    worker metrics:
                    \(partitionLines.joined(separator: "\n"))
                    worker log:
                    \(worker.standardError.suffix(3000))
                    """)
                return
            }
            try await Task.sleep(for: .seconds(1))
        }
        for batchId in expected {
            let own = events.filter { $0.subject == batchId }
            for type in ["attache.file.uploaded", "attache.batch.completed", "attache.message.sent"] {
                #expect(own.contains { $0.type == type }, "\(batchId) has its \(type) event")
            }
            if own.count < 3 {
                let delivered = worker.standardError.split(separator: "\n").filter { $0.contains("without an offset") && $0.contains("key=\(batchId) ") }
                let partitions = Set(delivered.compactMap { line in line.range(of: "partition=").map { String(line[$0.upperBound...].prefix { $0.isNumber }) } })
                var logs = ""
                for partition in partitions {
                    logs += try await Self.offsets(brokers, partition: partition)
                }
                Issue.record("\(batchId) events: \(own.map(\.type))\ndelivery reports:\n\(delivered.joined(separator: "\n"))\nevents partition:\n\(logs)")
            }
        }
        let port = try #require(Self.adminPort(in: worker.standardError), "the worker logs its admin port")
        #expect(try await Self.status(of: "http://127.0.0.1:\(port)/healthz") == 200, "healthy after the faults")

        worker.signal(SIGTERM)
        let status = await worker.waitForExit(timeout: .seconds(40))
        #expect(status == 0, "clean exit; log:\n\(worker.standardError.suffix(4000))")
        let errors = worker.standardError.split(separator: "\n").filter { $0.contains(" ERROR ") }
        #expect(errors.isEmpty, "transient broker trouble is not an error:\n\(errors.prefix(20).joined(separator: "\n"))")

        // Every job was committed: a fresh member of the group replays none of them.
        let completionsBefore = try await Self.events(brokers).filter { $0.type == "attache.batch.completed" }.count
        let successor = try environment.startWorker(name: "worker-faults-\(run)-2", group: Self.group, jobsTopic: Self.jobsTopic,
                                                    eventsTopic: Self.eventsTopic, brokers: brokers, extra: extra)
        let marker = "faults-\(run)-marker"
        try await Kcat.produce(brokers: brokers, topic: Self.jobsTopic, [(key: marker, value: Jobs.upload(batchId: marker, files: [
            Jobs.inline("m", name: "m.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 500, seed: 1)),
        ], send: "none"))])
        _ = try await eventually("the successor to process new work", timeout: .seconds(60)) {
            try await Self.events(brokers).contains { $0.subject == marker && $0.type == "attache.batch.completed" } ? true : nil
        }
        let completionsAfter = try await Self.events(brokers).filter { $0.type == "attache.batch.completed" }
        #expect(completionsAfter.count == completionsBefore + 1, "nothing committed was replayed")
        let perBatch = Dictionary(grouping: completionsAfter, by: \.subject)
        let repeated = perBatch.filter { expected.contains($0.key) && $0.value.count != 1 }.keys.sorted()
        // Repeats under one id are a record written twice; under different ids, a batch that completed twice.
        let repeats = repeated.prefix(5).map { batchId in
            let lines = worker.standardError.split(separator: "\n").filter { $0.contains(batchId + " ") || $0.hasSuffix(batchId) }
            return "\(batchId): " + perBatch[batchId, default: []].map { "id \($0.id) sequence \($0.sequence) from \($0.source)" }
                .joined(separator: "; ") + "\n  " + lines.suffix(12).joined(separator: "\n  ")
        }
        let rebalances = worker.standardError.split(separator: "\n").filter {
            $0.contains("partitions assigned") || $0.contains("revoked") || $0.contains("lost") || $0.contains("partition restored")
        }
        #expect(repeated.isEmpty, """
            one batch.completed per batch; repeated: \(repeated.prefix(10))
            \(repeats.joined(separator: "\n"))
            rebalances:
            \(rebalances.suffix(30).joined(separator: "\n"))
            """)
        successor.signal(SIGTERM)
        #expect(await successor.waitForExit(timeout: .seconds(30)) == 0)
    }

    private static func events(_ brokers: String) async throws -> [ReceivedEvent] {
        try await Kcat.consume(brokers: brokers, topic: eventsTopic).compactMap { ReceivedEvent(json: $0.value) }
    }

    /// offset, key and type of every record on one partition of the events topic.
    static func offsets(_ brokers: String, partition: String) async throws -> String {
        let text = try await Kcat.readFromStart(brokers: brokers, topic: eventsTopic, partition: partition,
                                                format: ["-f", "%p:%o %k %s\n"])
        return text.split(separator: "\n").map { line in
            let type = line.range(of: "\"type\":\"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) } ?? "?"
            return "\(line.prefix { $0 != "{" }) \(type)"
        }.joined(separator: "\n") + "\n"
    }

    static func adminPort(in log: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("admin endpoints listening") }),
              let range = line.range(of: "port=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    static func status(of url: String) async throws -> Int {
        let run = try await Subprocess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url])
        return Int(run.outputText) ?? 0
    }
}
