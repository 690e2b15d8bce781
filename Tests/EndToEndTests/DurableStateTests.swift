import DevServices
import Foundation
import KafkaIO
import S3
import TestSupport
import Testing
import WireFormat

/// Batches outlive the worker that holds them (DESIGN §4.1): the real binary handing batches over in a rolling
/// deploy, restarting on its staging directory, and refusing a changelog that does not match the jobs topic.
///
/// The rebalances run on librdkafka 2.16's mock, which moves partitions cooperatively as Kafka does (2.0.2's mock
/// drops the member that was there first when another joins).
@Suite(.serialized, .timeLimit(.minutes(10))) struct DurableStateTests {
    private func produce(_ brokers: String, _ topic: String, _ records: [(key: String, value: String)]) async throws {
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: brokers))
        for record in records {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: Data(record.key.utf8), value: Data(record.value.utf8)))
        }
        try await producer.close()
    }

    private func events(_ brokers: String, _ topic: String, of batchId: String? = nil) async throws -> [ReceivedEvent] {
        try await Kcat.consume(brokers: brokers, topic: topic).compactMap { ReceivedEvent(json: $0.value) }
            .filter { batchId == nil || $0.subject == batchId }
    }

    @Test func aRollingDeployHandsEveryKindOfBatchOverWithoutRepeatingOrForgetting() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await ChangelogTopics.cluster.value
        let brokers = cluster.bootstrapServers
        let topics = ChangelogTopics(name: "deploy")
        try await topics.create(on: cluster)
        let manual = "deploy-manual-\(topics.run)", joined = "deploy-joined-\(topics.run)", failing = "deploy-failing-\(topics.run)"
        let settings = topics.environment(["ATTACHE_LIMITS_FILE_COUNT_MAX": "2", "ATTACHE_RETRY_MAX_ATTEMPTS": "1"])
        // The failing batch's upload fails (ERR_S3_UPLOAD_FAILED) on the first worker, with no automatic retry left.
        let refusal = environment.services.store.faults.inject(.serverError(status: 500), target: .pathPrefix("/\(failing)/"))
        let first = try environment.startWorker(name: "deploy-a-\(topics.run)", group: topics.group, jobsTopic: topics.jobs,
                                                eventsTopic: topics.events, brokers: brokers, extra: settings)
        defer { first.signal(SIGKILL) }
        let j1 = Jobs.bytes(magic: Jobs.jpeg, size: 4096, seed: 1), m1 = Jobs.bytes(magic: Jobs.jpeg, size: 4096, seed: 2)
        let f1 = Jobs.bytes(magic: Jobs.pdf, size: 4096, seed: 3)
        try await produce(brokers, topics.jobs, [
            (manual, Jobs.upload(batchId: manual, files: [Jobs.inline("m1", name: "m1.jpg", mimeType: "image/jpeg", bytes: m1)], send: "manual")),
            (joined, Jobs.upload(batchId: joined, files: [Jobs.inline("j1", name: "j1.jpg", mimeType: "image/jpeg", bytes: j1)])),
            (failing, Jobs.upload(batchId: failing, files: [Jobs.inline("f1", name: "f1.pdf", mimeType: "application/pdf", bytes: f1)])),
        ])
        _ = try await eventually("the first worker to settle the three batches", timeout: .seconds(90)) { () -> Bool? in
            let all = try await events(brokers, topics.events)
            let manualDone = all.contains { $0.subject == manual && $0.type == "attache.batch.completed" }
            let joinedSent = all.contains { $0.subject == joined && $0.type == "attache.message.sent" }
            let failed = all.contains { $0.subject == failing && $0.type == "attache.file.failed" && $0.data["willRetry"] == false }
            return manualDone && joinedSent && failed ? true : nil
        }
        let before = try await events(brokers, topics.events)
        let lastSequence = before.filter { $0.subject == manual }.map(\.sequence).max() ?? 0

        // The deploy: a second worker joins, then the first leaves cleanly.
        let second = try environment.startWorker(name: "deploy-b-\(topics.run)", group: topics.group, jobsTopic: topics.jobs,
                                                 eventsTopic: topics.events, brokers: brokers, extra: settings)
        defer { second.signal(SIGKILL) }
        _ = try await eventually("the second worker to join", timeout: .seconds(60)) {
            second.standardError.contains("partitions assigned") ? true : nil
        }
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(40)) == 0, "clean leave; log:\n\(first.standardError)")
        environment.services.store.faults.remove(refusal)

        try await produce(brokers, topics.jobs, [
            (manual, Jobs.control("send", batchId: manual)),
            (joined, Jobs.upload(batchId: joined, files: [
                Jobs.inline("j1", name: "j1.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 4096, seed: 9)),
                Jobs.inline("j2", name: "j2.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 4096, seed: 4)),
                Jobs.inline("j3", name: "j3.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 4096, seed: 5)),
            ])),
            (failing, Jobs.control("retry", batchId: failing, fileId: "f1")),
        ])
        let after = try await eventually("the second worker to act on all three", timeout: .seconds(90)) { () -> [ReceivedEvent]? in
            let all = try await events(brokers, topics.events).filter { $0.source == "attache/deploy-b-\(topics.run)" }
            let manualSent = all.contains { $0.subject == manual && $0.type == "attache.message.sent" }
            let joinedSent = all.contains { $0.subject == joined && $0.type == "attache.message.sent" }
            let retried = all.contains { $0.subject == failing && $0.type == "attache.file.uploaded" }
            return manualSent && joinedSent && retried ? all : nil
        }
        let log = "\nfirst:\n\(first.standardError)\nsecond:\n\(second.standardError)"
        // The manual send went out, with the file the first worker uploaded.
        let manualSent = after.filter { $0.subject == manual && $0.type == "attache.message.sent" }
        #expect(manualSent.map { $0.data["fileIds"]?.strings ?? [] } == [["m1"]], "\(log)")
        #expect(manualSent.allSatisfy { $0.sequence > lastSequence }, "the sequence continues across owners")
        // The joined batch: a live id is refused, capacity counts the earlier file, the result is the whole batch.
        let joinedEvents = after.filter { $0.subject == joined }
        let rejected = joinedEvents.filter { $0.type == "attache.file.rejected" }.map { ($0.fileId ?? "", $0.errorCode ?? "") }
        #expect(rejected.map(\.0) == ["j1", "j3"], "\(log)")
        #expect(rejected.map(\.1) == ["ERR_INVALID_FILE_OBJECT", "ERR_FILE_COUNT_EXCEEDED"])
        #expect(joinedEvents.last { $0.type == "attache.batch.completed" }?.fileIds(in: "successful") == ["j1", "j2"])
        #expect(joinedEvents.filter { $0.type == "attache.message.sent" }.map { $0.data["fileIds"]?.strings ?? [] } == [["j2"]],
                "what was sent before the deploy is not sent again")
        // The failed file, retried on the new owner, staged again from the job record that carried it.
        #expect(environment.services.store.object(forKey: "\(failing)/f1/f1.pdf")?.sha256 == SHA256Hasher.hex(of: f1))
        // Nothing uploaded before the deploy was uploaded again.
        for key in ["/\(manual)/m1/", "/\(joined)/j1/"] {
            let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix(key) }
            #expect(puts.count == 1, "\(key) uploaded once: \(puts.count)")
        }
        let muids = environment.services.messages.requests.compactMap(\.message).filter { message in
            if case .string(let id) = message.data.metadata?["batchId"] { return [manual, joined].contains(id) }
            return false
        }.compactMap(\.muid)
        #expect(muids.count == Set(muids).count, "no message posted twice")
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
    }

    @Test func aRestartReadsOnlyTheChangelogsTailAndACorruptedStoreIsRebuilt() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await ChangelogTopics.cluster.value
        let brokers = cluster.bootstrapServers
        let topics = ChangelogTopics(name: "restart")
        try await topics.create(on: cluster)
        let name = "restart-\(topics.run)"
        let start = { try environment.startWorker(name: name, group: topics.group, jobsTopic: topics.jobs, eventsTopic: topics.events,
                                                  brokers: brokers, extra: topics.environment()) }
        let batches = (0..<20).map { "restart-\(topics.run)-\($0)" }
        var worker = try start()
        try await produce(brokers, topics.jobs, batches.map { batchId in
            (batchId, Jobs.upload(batchId: batchId, files: [
                Jobs.inline("a", name: "a.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 1024, seed: 1)),
            ], send: "manual"))
        })
        _ = try await eventually("every batch to complete", timeout: .seconds(90)) {
            let done = Set(try await events(brokers, topics.events).filter { $0.type == "attache.batch.completed" }.map(\.subject))
            return batches.allSatisfy(done.contains) ? true : nil
        }
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)
        let written = try await Kcat.consume(brokers: brokers, topic: topics.batches).count
        #expect(written >= batches.count)

        // The same staging directory: the store is current, so the restore reads (nearly) nothing.
        worker = try start()
        let tail = try await eventually("the restart to restore its partitions", timeout: .seconds(60)) {
            Self.restoredRecords(worker.standardError, partitions: 4)
        }
        #expect(tail < written, "only the tail past the checkpoint is read: \(tail) of \(written)")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)

        // A corrupted store is recreated and rebuilt from the topic, and the batches are all still there.
        let database = environment.workspace.appendingPathComponent("staging-\(name)/state.db")
        try Data(repeating: 0x5A, count: 8192).write(to: database)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        worker = try start()
        defer { worker.signal(SIGKILL) }
        let rebuilt = try await eventually("the rebuild", timeout: .seconds(60)) { Self.restoredRecords(worker.standardError, partitions: 4) }
        #expect(rebuilt >= batches.count, "every record read again: \(rebuilt)")
        #expect(worker.standardError.contains("batch store unreadable"))
        try await produce(brokers, topics.jobs, [(batches[0], Jobs.control("send", batchId: batches[0]))])
        _ = try await eventually("the manual send after the rebuild", timeout: .seconds(60)) {
            try await events(brokers, topics.events, of: batches[0]).contains { $0.type == "attache.message.sent" } ? true : nil
        }
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)
    }

    @Test func aChangelogWithTheWrongPartitionCountRefusesTheStartNamingBoth() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await ChangelogTopics.cluster.value
        let topics = ChangelogTopics(name: "mismatch")
        try await topics.create(on: cluster, partitions: 4, changelogPartitions: 3)
        let worker = try environment.startWorker(name: "mismatch-\(topics.run)", group: topics.group, jobsTopic: topics.jobs,
                                                 eventsTopic: topics.events, brokers: cluster.bootstrapServers, extra: topics.environment())
        let status = await worker.waitForExit(timeout: .seconds(30))
        #expect(status != nil && status != 0)
        let log = worker.standardError
        #expect(log.contains(topics.batches) && log.contains(topics.jobs) && log.contains("3 partitions") && log.contains("has 4"), "\(log)")
    }

    @Test func scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await ChangelogTopics.cluster.value
        let brokers = cluster.bootstrapServers
        let topics = ChangelogTopics(name: "scale")
        try await topics.create(on: cluster)
        let jobCount = 150
        let prefix = "scale-\(topics.run)-"
        let trickle = environment.services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 64 * 1024), target: .pathPrefix("/\(prefix)"))
        defer { environment.services.store.faults.remove(trickle) }
        let start = { (name: String) in
            try environment.startWorker(name: "\(prefix)\(name)", group: topics.group, jobsTopic: topics.jobs, eventsTopic: topics.events,
                                        brokers: brokers, extra: topics.environment(["ATTACHE_WORKER_MAX_TRANSFERS": "8"]))
        }
        let first = try start("a")
        defer { first.signal(SIGKILL) }
        let batches = (0..<jobCount).map { "\(prefix)\($0)" }
        try await produce(brokers, topics.jobs, batches.enumerated().map { index, batchId in
            (batchId, Jobs.upload(batchId: batchId, files: [
                Jobs.inline("f", name: "f.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 16 * 1024, seed: index)),
            ]))
        })
        func sent() async throws -> Set<String> {
            Set(try await events(brokers, topics.events).filter { $0.type == "attache.message.sent" }.map(\.subject))
        }
        _ = try await eventually("a first share of the jobs", timeout: .seconds(90)) { try await sent().count >= 20 ? true : nil }
        let second = try start("b"), third = try start("c")
        defer { second.signal(SIGKILL); third.signal(SIGKILL) }
        _ = try await eventually("the new members to take partitions", timeout: .seconds(90)) {
            second.standardError.contains("partitions assigned") && third.standardError.contains("partitions assigned") ? true : nil
        }
        _ = try await eventually("more jobs on three members", timeout: .seconds(90)) { try await sent().count >= 80 ? true : nil }
        second.signal(SIGTERM)
        third.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
        #expect(await third.waitForExit(timeout: .seconds(40)) == 0)
        _ = try await eventually("every batch to be sent", timeout: .seconds(180), every: .seconds(1)) {
            try await sent().isSuperset(of: batches) ? true : nil
        }
        let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/\(prefix)") }
        let repeatedUploads = Dictionary(grouping: puts, by: \.path).values.reduce(0) { $0 + $1.count - 1 }
        let posts = environment.services.messages.requests.filter { request in
            if case .string(let id) = request.message?.data.metadata?["batchId"] { return id.hasPrefix(prefix) }
            return false
        }
        print("scale 1→3→1: \(puts.count) uploads for \(jobCount) files (\(repeatedUploads) repeated), \(posts.count) posts for \(jobCount) messages")
        #expect(Double(repeatedUploads) <= 0.05 * Double(jobCount), "uploads repeated: \(repeatedUploads)")
        #expect(Double(posts.count) <= 1.05 * Double(jobCount), "message posts: \(posts.count)")
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(40)) == 0)
    }

    /// The sum of `recordsRead` over the first `partitions` "partition restored" lines of a worker's log; nil until
    /// that many were logged.
    static func restoredRecords(_ log: String, partitions: Int) -> Int? {
        let lines = log.split(separator: "\n").filter { $0.contains("partition restored") }
        guard lines.count >= partitions else { return nil }
        return lines.prefix(partitions).reduce(0) { sum, line in
            guard let range = line.range(of: "recordsRead=") else { return sum }
            return sum + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }
}
