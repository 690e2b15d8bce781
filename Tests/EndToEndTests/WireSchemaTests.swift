import DevServices
import Foundation
import KafkaIO
import TestSupport
import Testing
import WireFormat

/// The published wire contract (`docs/schemas`, `docs/asyncapi.yaml`) held against the docs and against the real
/// worker: every record and HTTP body an end-to-end run writes validates against its schema, and the schemas agree
/// with the worker on which jobs-topic records are invalid.
@Suite(.serialized, .timeLimit(.minutes(5))) struct WireSchemaTests {
    /// Topics of one run, on a cluster of its own; one partition each, so records read back in order.
    private struct Topics {
        let run: String
        var jobs: String { "schemas-\(run).jobs" }
        var kafkaJobs: String { "schemas-\(run)-kafka.jobs" }
        var events: String { "schemas-\(run).events" }
        var dlq: String { "schemas-\(run).dlq" }
        var messages: String { "schemas-\(run).messages" }
        var changelogs: [String] { [jobs, kafkaJobs].map(EndToEndEnvironment.changelog(of:)) }
        var all: [String] { [jobs, kafkaJobs, events, dlq, messages] + changelogs }
    }

    static let eventTypes: Set<String> = [
        "attache.file.progress", "attache.file.uploaded", "attache.file.rejected", "attache.file.failed",
        "attache.file.removed", "attache.batch.completed", "attache.message.sent", "attache.message.failed",
        "attache.job.invalid",
    ]

    @Test func theSchemasTheDocsExamplesAndTheAsyncAPIDocumentAreValid() async throws {
        let (status, output) = try await SchemaCheck.run()
        #expect(status == 0, "ops/check-schemas:\n\(output)")
    }

    @Test func everyRecordAndBodyAWorkerWritesValidatesAgainstItsSchema() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let topics = Topics(run: String(UUID().uuidString.prefix(6)).lowercased())
        let cluster = try await MockKafkaCluster.start(brokers: 1)
        for topic in topics.all { _ = try await cluster.createTopic(topic, partitions: 1) }
        let brokers = cluster.bootstrapServers
        // Services of its own: the faults below must not reach other suites' messages.
        let services = try EmbeddedServices(configuration: .init(messages: .init(apiKey: EndToEndEnvironment.apiKey)))
        defer { services.stop() }
        let presign = try RecordingPresignProxy(forwardingTo: services.presignURL)
        defer { presign.stop() }
        _ = services.presign.faults.inject(.refuseFile(code: "ERR_FILE_TYPE_NOT_ALLOWED", message: "not here"), target: .fileId("refused"))
        _ = services.store.faults.inject(.serverError(status: 503), target: .fileId("flaky"), times: 1)
        _ = services.store.faults.inject(.serverError(status: 503), target: .fileId("broken"), times: 3)  // retry.maxAttempts
        _ = services.messages.faults.inject(.serverError(status: 503), times: 1)

        let common = ["ATTACHE_PRESIGN_URL": presign.url, "ATTACHE_MESSAGES_URL": services.messagesURL, "ATTACHE_KAFKA_DLQ_TOPIC": topics.dlq]
        let http = try environment.startWorker(name: "schemas-http-\(topics.run)", group: "\(topics.jobs)-group", jobsTopic: topics.jobs,
                                               eventsTopic: topics.events, brokers: brokers, extra: common)
        defer { http.signal(SIGKILL) }
        let kafka = try environment.startWorker(
            name: "schemas-kafka-\(topics.run)", group: "\(topics.kafkaJobs)-group", jobsTopic: topics.kafkaJobs,
            eventsTopic: topics.events, brokers: brokers,
            extra: common.merging(["ATTACHE_MESSAGES_MODE": "kafka", "ATTACHE_KAFKA_MESSAGES_TOPIC": topics.messages]) { $1 })
        defer { kafka.signal(SIGKILL) }

        let mixed = "mixed-\(topics.run)", manual = "manual-\(topics.run)", viaKafka = "kafka-\(topics.run)"
        let notes = "\(mixed)/notes.pdf"
        try FileManager.default.createDirectory(at: environment.sourceRoot.appendingPathComponent(mixed), withIntermediateDirectories: true)
        try Jobs.bytes(magic: Jobs.pdf, size: 20_000, seed: 1).write(to: environment.sourceRoot.appendingPathComponent(notes))
        try await Kcat.produce(brokers: brokers, topic: topics.jobs, [
            // Uploaded (inline and path), rejected at intake and by the presign service, failed once then uploaded,
            // failed for good; sent as two messages, the first send failing once.
            (key: mixed, value: Jobs.json([
                "kind": "upload", "batchId": .string(mixed), "requestId": .string("req-\(topics.run)"), "receiver": ["id": "uid-1", "type": "user"],
                "sender": "uid-7", "parentMessageId": 1234, "concurrency": 2,
                "files": [
                    Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 30_000, seed: 2)),
                    Jobs.path("notes", name: "notes.pdf", mimeType: "application/pdf", path: notes),
                    Jobs.inline("empty", name: "empty.txt", mimeType: "text/plain", bytes: Data()),
                    Jobs.inline("refused", name: "refused.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 900, seed: 3)),
                    Jobs.inline("flaky", name: "flaky.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 2000, seed: 4)),
                    Jobs.inline("broken", name: "broken.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 2000, seed: 8)),
                ],
                "message": ["send": "auto", "caption": "Trip photos", "metadata": ["trip": 42], "tags": ["travel"]],
            ])),
            (key: manual, value: Jobs.upload(batchId: manual, files: [
                Jobs.inline("a", name: "a.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 3000, seed: 5)),
                Jobs.inline("b", name: "b.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 3000, seed: 6)),
            ], send: "manual")),
            // Invalid as a whole, each for another reason.
            (key: "poison-\(topics.run)-a", value: "this is not json"),
            (key: "poison-\(topics.run)-b", value: #"{"kind":"explode"}"#),
            (key: "poison-\(topics.run)-c", value: #"{"kind":"upload","files":[]}"#),
            (key: "poison-\(topics.run)-d", value: #"{"kind":"retry"}"#),
        ])
        try await Kcat.produce(brokers: brokers, topic: topics.kafkaJobs, [(key: viaKafka, value: Jobs.upload(batchId: viaKafka, files: [
            Jobs.inline("k", name: "k.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 2000, seed: 7)),
        ]))])

        func events(_ batchId: String, _ type: String) async throws -> Int {
            try await Kcat.consume(brokers: brokers, topic: topics.events).compactMap { ReceivedEvent(json: $0.value) }
                .filter { $0.subject.hasPrefix(batchId) && $0.type == type }.count
        }
        func wait(_ batchId: String, _ type: String, count: Int = 1) async throws {
            _ = try await eventually("\(count)× \(type) for \(batchId)", timeout: .seconds(90)) {
                try await events(batchId, type) >= count ? true : nil
            }
        }
        try await wait(manual, "attache.batch.completed")
        try await Kcat.produce(brokers: brokers, topic: topics.jobs, [
            (key: manual, value: Jobs.json(["kind": "configure", "batchId": .string(manual), "concurrency": 3])),
            (key: manual, value: Jobs.control("remove", batchId: manual, fileId: "b")),
            (key: manual, value: Jobs.control("send", batchId: manual)),
            (key: manual, value: Jobs.control("retry", batchId: manual, fileId: "nobody")),
        ])
        try await wait(manual, "attache.message.sent")
        try await Kcat.produce(brokers: brokers, topic: topics.jobs, [(key: manual, value: Jobs.control("clear", batchId: manual))])
        try await wait(manual, "attache.file.removed", count: 2)
        try await wait(mixed, "attache.message.sent", count: 2)
        try await wait(viaKafka, "attache.message.sent")
        try await wait("poison-\(topics.run)", "attache.job.invalid", count: 4)
        _ = try await eventually("the cleared batch's cleared snapshot") {
            try await Kcat.envelopes(brokers: brokers, topic: topics.changelogs[0]).contains { $0.contains("cleared") } ? true : nil
        }

        let directory = environment.workspace.appendingPathComponent("schemas-\(topics.run)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var collected: [String: [String]] = [:]
        for (file, names) in [("events", [topics.events]), ("dead-letters", [topics.dlq]), ("batches", topics.changelogs),
                              ("messages", [topics.messages]), ("jobs", [topics.jobs, topics.kafkaJobs])] {
            var lines: [String] = []
            for name in names { lines += try await Kcat.envelopes(brokers: brokers, topic: name) }
            collected[file] = lines
            try lines.joined(separator: "\n").write(to: directory.appendingPathComponent("\(file).jsonl"), atomically: true, encoding: .utf8)
        }
        for (index, exchange) in presign.exchanges.enumerated() {
            try exchange.request.write(to: directory.appendingPathComponent(String(format: "presign-request-%03d.json", index)))
            if (200..<300).contains(exchange.status) {
                try exchange.answer.write(to: directory.appendingPathComponent(String(format: "presign-answer-%03d.json", index)))
            }
        }
        for (index, request) in services.messages.requests.enumerated() {
            try request.body.write(to: directory.appendingPathComponent(String(format: "message-%03d.json", index)))
        }

        // The run covered what the schemas describe, so a green check below means something.
        func values(_ file: String) -> [[String: JSONValue]] {
            (collected[file] ?? []).compactMap { line in
                guard let envelope = try? JSONParser.parse(line.utf8), let payload = envelope["payload"]?.stringValue else { return nil }
                return (try? JSONParser.parse(payload.utf8))?.objectValue
            }
        }
        let types = Set(values("events").compactMap { $0["type"]?.stringValue })
        #expect(types == Self.eventTypes, "event types seen: \(types.sorted())")
        let states = Set(values("batches").flatMap { ($0["files"]?.arrayValue ?? []).compactMap { $0["state"]?.stringValue } })
        #expect(states == ["pending", "uploaded", "failed", "rejected"], "snapshot file states seen: \(states.sorted())")
        #expect(collected["dead-letters"]?.count == 4)
        #expect(collected["messages"]?.count == 1)
        #expect(services.messages.requests.count >= 3)
        #expect(!presign.exchanges.isEmpty)

        let (status, output) = try await SchemaCheck.run(["records", directory.path])
        #expect(status == 0, "ops/check-schemas records \(directory.path):\n\(output)")
        #expect(output.contains("checked"), "\(output)")

        http.signal(SIGTERM)
        kafka.signal(SIGTERM)
        #expect(await http.waitForExit(timeout: .seconds(30)) == 0)
        #expect(await kafka.waitForExit(timeout: .seconds(30)) == 0)
    }
}
