import DevServices
import Foundation
import KafkaIO
import S3
import TestSupport
import Testing
import WireFormat

/// Workers stopped and killed mid-run: nothing finished is lost, nothing unfinished is committed.
@Suite(.serialized, .timeLimit(.minutes(10))) struct WorkerResilienceTests {
    @Test func sigtermDuringUploadsDrainsCommitsAndExitsZero() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let topic = "e2e.shutdown.jobs", events = "e2e.shutdown.events"
        let batchId = "shutdown-\(UUID().uuidString.prefix(8))"
        // The file trickles in over about two seconds, so SIGTERM lands mid-upload.
        let trickle = environment.services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 128 * 1024), target: .pathPrefix("/\(batchId)/"))
        defer { environment.services.store.faults.remove(trickle) }
        let worker = try environment.startWorker(name: "worker-shutdown", group: "e2e-shutdown", jobsTopic: topic, eventsTopic: events)
        try await Kcat.produce(brokers: environment.brokers, topic: topic, [(key: batchId, value: Jobs.upload(batchId: batchId, files: [
            Jobs.inline("big", name: "big.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 256 * 1024, seed: 9)),
        ], send: "none"))])
        _ = try await eventually("the upload to be under way", timeout: .seconds(30)) {
            try await environment.events(of: batchId, topic: events).contains { $0.type == "attache.file.progress" } ? true : nil
        }
        worker.signal(SIGTERM)
        let status = await worker.waitForExit(timeout: .seconds(25))
        #expect(status == 0, "exit status \(String(describing: status)); log:\n\(worker.standardError)")
        let completions = try await environment.events(of: batchId, topic: events).filter { $0.type == "attache.batch.completed" }
        #expect(completions.count == 1, "the in-flight batch finished within the grace period")
        #expect(completions.first?.fileIds(in: "successful") == ["big"])

        // The finished job was committed: a new member of the group does not process it again.
        let marker = "shutdown-marker-\(UUID().uuidString.prefix(8))"
        let successor = try environment.startWorker(name: "worker-shutdown-2", group: "e2e-shutdown", jobsTopic: topic, eventsTopic: events)
        try await Kcat.produce(brokers: environment.brokers, topic: topic, [(key: marker, value: Jobs.upload(batchId: marker, files: [
            Jobs.inline("m", name: "m.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 500, seed: 10)),
        ], send: "none"))])
        _ = try await eventually("the successor to process new work", timeout: .seconds(60)) {
            try await environment.events(of: marker, topic: events).contains { $0.type == "attache.batch.completed" } ? true : nil
        }
        let again = try await environment.events(of: batchId, topic: events).filter { $0.type == "attache.batch.completed" }
        #expect(again.count == 1, "the committed job was not replayed")
        successor.signal(SIGTERM)
        _ = await successor.waitForExit(timeout: .seconds(25))
    }

    @Test func aKilledWorkersJobsAreFinishedByTheSurvivorWithoutLossOrDoubles() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let topic = "e2e.crash.jobs", events = "e2e.crash.events"
        let run = UUID().uuidString.prefix(6)
        let jobCount = 200
        // Uploads trickle so the kill lands while many are in flight.
        let trickle = environment.services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 64 * 1024), target: .pathPrefix("/crash-\(run)-"))
        defer { environment.services.store.faults.remove(trickle) }
        let extra = ["ATTACHE_WORKER_MAX_TRANSFERS": "16"]
        let first = try environment.startWorker(name: "worker-crash-a", group: "e2e-crash", jobsTopic: topic, eventsTopic: events, extra: extra)
        let second = try environment.startWorker(name: "worker-crash-b", group: "e2e-crash", jobsTopic: topic, eventsTopic: events, extra: extra)
        var expected: [String: String] = [:]
        var records: [(key: String, value: String)] = []
        for index in 0..<jobCount {
            let batchId = "crash-\(run)-\(index)"
            let bytes = Jobs.bytes(magic: Jobs.jpeg, size: 24 * 1024, seed: index)
            expected[batchId] = SHA256Hasher.hex(of: bytes)
            records.append((key: batchId, value: Jobs.upload(batchId: batchId, files: [
                Jobs.inline("f", name: "photo.jpg", mimeType: "image/jpeg", bytes: bytes),
            ])))
        }
        try await Kcat.produce(brokers: environment.brokers, topic: topic, records)

        _ = try await eventually("some uploads to finish before the kill", timeout: .seconds(60)) {
            try await environment.events(topic: events).filter { $0.type == "attache.file.uploaded" }.count >= 20 ? true : nil
        }
        first.signal(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(5))
        // What the killed worker had recorded is all its successor knows: a batch recorded uploaded is not uploaded
        // again, whatever the load.
        let recordedUploaded = try await Self.batchesRecordedUploaded(
            brokers: environment.brokers, changelog: EndToEndEnvironment.changelog(of: topic), prefix: "crash-\(run)-")

        let completed = try await eventually("every batch to complete", timeout: .seconds(180), every: .seconds(1)) {
            let done = Set(try await environment.events(topic: events).filter { $0.type == "attache.message.sent" }.map(\.subject))
            return expected.keys.allSatisfy(done.contains) ? done : nil
        }
        #expect(completed.count >= jobCount)
        for (batchId, digest) in expected {
            let stored = environment.services.store.object(forKey: "\(batchId)/f/photo.jpg")
            #expect(stored?.sha256 == digest, "\(batchId) stored with the right bytes")
        }
        // Batches restored from their snapshots are not uploaded again. Repeats come only from what the killed worker
        // had not recorded: uploads in flight (16 transfers) and those finished since its last delivered snapshot,
        // whose number grows with the load on the machine (as do rebalances a starved member causes, each repeating
        // what was in flight) — so the check is per batch, on what the changelog held at the kill, not a count.
        let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/crash-\(run)-") }
        let putsPerBatch = Dictionary(grouping: puts) { String($0.path.dropFirst().prefix { $0 != "/" }) }.mapValues(\.count)
        let repeated = putsPerBatch.values.reduce(0) { $0 + $1 - 1 }
        print("crash test: \(puts.count) uploads for \(jobCount) files, \(repeated) repeated; \(recordedUploaded.count) recorded uploaded at the kill")
        #expect(!recordedUploaded.isEmpty, "the kill came after 20 uploads: some were recorded")
        let uploadedAgain = recordedUploaded.filter { putsPerBatch[$0, default: 0] > 1 }.sorted()
        #expect(uploadedAgain.isEmpty, "recorded uploaded before the kill, uploaded again: \(uploadedAgain)")
        let requests = environment.services.messages.requests.filter { request in
            (request.message?.data.metadata?["batchId"]).map { if case .string(let id) = $0 { id.hasPrefix("crash-\(run)-") } else { false } } ?? false
        }
        let unique = Set(requests.compactMap(\.message?.muid))
        print("crash test: \(requests.count) message requests, \(unique.count) after deduplication by muid, \(jobCount) batches")
        #expect(unique.count == jobCount, "one message per batch after deduplication: none missing, none doubled")
        let perBatch = Dictionary(grouping: requests.compactMap(\.message), by: { message -> String in
            if case .string(let id) = message.data.metadata?["batchId"] { return id }
            return ""
        })
        #expect(perBatch.count == jobCount)
        #expect(perBatch.values.allSatisfy { Set($0.compactMap(\.muid)).count == 1 }, "a replayed batch re-sends the same muid")
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(30)) == 0)
    }

    /// The batches (ids starting with `prefix`) whose newest snapshot in `changelog` has their file uploaded.
    private static func batchesRecordedUploaded(brokers: String, changelog: String, prefix: String) async throws -> Set<String> {
        var newest: [String: String] = [:]
        for record in try await Kcat.consume(brokers: brokers, topic: changelog) where record.key.hasPrefix(prefix) {
            newest[record.key] = record.value
        }
        return Set(newest.compactMap { batchId, value -> String? in
            guard let snapshot = try? JSONParser.parse(value.utf8),
                let files = snapshot["files"]?.arrayValue,
                files.contains(where: { $0["fileId"] == "f" && $0["state"] == "uploaded" })
            else { return nil }
            return batchId
        })
    }

    @Test func aPartitionMovingToANewMemberLetsItsUploadsFinishWithinTheRevokeGrace() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let run = UUID().uuidString.prefix(6)
        let topic = "e2e.handover-\(run).jobs", events = "e2e.handover-\(run).events", group = "e2e-handover-\(run)"
        // Every upload stalls until the group is rebalancing, so the revoke finds them all under way.
        let stall = environment.services.store.faults.inject(.stall(afterBodyBytes: 16 * 1024), target: .pathPrefix("/handover-\(run)-"))
        // librdkafka 2.0.2's mock answers the member that was there first with ILLEGAL_GENERATION when another joins,
        // so its partitions are lost rather than revoked; 2.16's mock rebalances cooperatively, as Kafka does.
        let cluster = try await ClusterKind.wheel.start(brokers: 1, workspace: environment.workspace)
        try await cluster.createTopic(topic, partitions: 4, replicationFactor: 1)
        try await cluster.createTopic(events, partitions: 4, replicationFactor: 1)
        let brokers = cluster.bootstrapServers
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: brokers))
        let first = try environment.startWorker(name: "worker-handover-a-\(run)", group: group, jobsTopic: topic, eventsTopic: events,
                                                brokers: brokers, extra: ["ATTACHE_WORKER_REVOKE_GRACE": "4s", "ATTACHE_UPLOAD_STALL_TIMEOUT": "90s"])
        defer { first.signal(SIGTERM) }
        _ = try await eventually("the first member to take the partitions", timeout: .seconds(60)) {
            first.standardError.contains("partitions assigned") ? true : nil
        }
        let partitions: Int32 = 4
        var batches: [String] = []
        for partition in 0..<partitions {
            let batchId = "handover-\(run)-\(partition)"
            batches.append(batchId)
            let job = Jobs.upload(batchId: batchId, files: [
                Jobs.inline("f", name: "f.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 256 * 1024, seed: Int(partition))),
            ], send: "none")
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: Data(batchId.utf8), value: Data(job.utf8), partition: partition))
        }
        _ = try await eventually("every upload to be under way", timeout: .seconds(30)) {
            environment.services.store.faults.stalledRequests == batches.count ? true : nil
        }
        let second = try environment.startWorker(name: "worker-handover-b-\(run)", group: group, jobsTopic: topic, eventsTopic: events,
                                                 brokers: brokers, extra: ["ATTACHE_WORKER_REVOKE_GRACE": "4s", "ATTACHE_UPLOAD_STALL_TIMEOUT": "90s"])
        defer { second.signal(SIGTERM) }
        _ = try await eventually("the first member to give partitions up", timeout: .seconds(90)) {
            first.standardError.contains("partitions released") ? true : nil
        }
        environment.services.store.faults.remove(stall)
        environment.services.store.faults.releaseStalls()
        let completions = try await eventually("every batch to complete", timeout: .seconds(60)) { () -> [ReceivedEvent]? in
            let done = try await Kcat.consume(brokers: brokers, topic: events).compactMap { ReceivedEvent(json: $0.value) }
                .filter { $0.type == "attache.batch.completed" }
            return batches.allSatisfy { id in done.contains { $0.subject == id } } ? done : nil
        }
        _ = try await eventually("the second member to take its partitions", timeout: .seconds(60)) {
            second.standardError.contains("partitions assigned") ? true : nil
        }
        #expect(!first.standardError.contains("partitions lost"),
                "a clean join moves partitions without the first member being dropped (no commit with an old generation)")
        for batchId in batches {
            let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/\(batchId)/") }
            #expect(puts.count == 1, "\(batchId) uploaded once, by the member that started it: \(puts)")
            #expect(completions.filter { $0.subject == batchId }.map(\.source) == ["attache/worker-handover-a-\(run)"],
                    "\(batchId) completed on the first member, within its revoke grace")
        }
    }
}
