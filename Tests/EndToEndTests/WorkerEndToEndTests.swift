import DevServices
import Foundation
import S3
import TestSupport
import Testing
import WireFormat

/// The real `attache worker` binary against `attache dev-broker` over TCP, driven with kcat, uploading to the
/// loopback object store and sending to the loopback message API.
@Suite(.serialized, .timeLimit(.minutes(5))) struct WorkerEndToEndTests {
    /// One worker for the functional tests, ready once it owns partitions.
    static let worker = Task { () throws -> ChildProcess in
        let environment = try await EndToEndEnvironment.shared.value
        let worker = try environment.startWorker(name: "worker-main", group: "e2e-main")
        _ = try await eventually("the worker's first assignment", timeout: .seconds(30)) {
            worker.standardError.contains("partitions assigned") ? true : nil
        }
        return worker
    }

    private func setUp() async throws -> (EndToEndEnvironment, ChildProcess) {
        let environment = try await EndToEndEnvironment.shared.value
        return (environment, try await Self.worker.value)
    }

    private func produce(_ environment: EndToEndEnvironment, _ records: [(String, String)], topic: String = "attache.jobs") async throws {
        try await Kcat.produce(brokers: environment.brokers, topic: topic, records.map { (key: $0.0, value: $0.1) })
    }

    private func waitFor(_ environment: EndToEndEnvironment, _ batchId: String, _ type: String, count: Int = 1,
                         timeout: Duration = .seconds(60)) async throws -> [ReceivedEvent] {
        try await eventually("\(count)× \(type) for \(batchId)", timeout: timeout) {
            let events = try await environment.events(of: batchId)
            return events.filter { $0.type == type }.count >= count ? events : nil
        }
    }

    private func messages(_ environment: EndToEndEnvironment, batchId: String) -> [CapturedMessage] {
        environment.services.messages.messages.compactMap(\.message).filter { $0.data.metadata?["batchId"] == .string(batchId) }
    }

    @Test func aJobsFilesAreStoredAndSentGroupedByType() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-upload-\(UUID().uuidString.prefix(8))"
        let photo = Jobs.bytes(magic: Jobs.jpeg, size: 40_000, seed: 1)
        let notes = Jobs.bytes(magic: Jobs.pdf, size: 300_000, seed: 2)
        let relative = "\(batchId)/notes.pdf"
        try FileManager.default.createDirectory(at: environment.sourceRoot.appendingPathComponent(batchId), withIntermediateDirectories: true)
        try notes.write(to: environment.sourceRoot.appendingPathComponent(relative))
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.path("notes", name: "notes.pdf", mimeType: "application/pdf", path: relative),
            Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: photo),
        ], caption: "Trip photos", requestId: "req-e2e-1"))])

        let events = try await waitFor(environment, batchId, "attache.message.sent", count: 2)
        #expect(events.map(\.sequence) == Array(1...events.count), "sequence counts the batch's events")
        #expect(events.filter { $0.type != "attache.batch.completed" && $0.fileId != nil }.allSatisfy { $0.data["requestId"] == "req-e2e-1" })
        for (fileId, name, bytes) in [("photo", "photo.jpg", photo), ("notes", "notes.pdf", notes)] {
            let stored = try #require(environment.services.store.object(forKey: "\(batchId)/\(fileId)/\(name)"))
            #expect(stored.sha256 == SHA256Hasher.hex(of: bytes))
            let uploaded = try #require(events.first { $0.type == "attache.file.uploaded" && $0.fileId == fileId })
            #expect(uploaded.data["attachment"]?["sha256"]?.stringValue == stored.sha256)
            let progress = events.filter { $0.type == "attache.file.progress" && $0.fileId == fileId }
            #expect(progress.last?.data["loaded"]?.wholeNumber == Int64(bytes.count))
            #expect(progress.last?.data["percent"]?.wholeNumber == 100)
        }
        let sent = messages(environment, batchId: batchId)
        #expect(sent.map(\.type) == ["image", "file"])
        #expect(sent.map { $0.data.attachments.map(\.name) } == [["photo.jpg"], ["notes.pdf"]])
        #expect(sent.map(\.data.text) == ["Trip photos", nil])
        #expect(environment.services.messages.requests.allSatisfy { $0.apiKey == EndToEndEnvironment.apiKey })
    }

    @Test func jobsWithTheSameBatchIdJoinTheBatch() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-join-\(UUID().uuidString.prefix(8))"
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.inline("a", name: "a.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 5000, seed: 3)),
        ]))])
        _ = try await waitFor(environment, batchId, "attache.message.sent")
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.inline("b", name: "b.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 6000, seed: 4)),
        ]))])
        let events = try await waitFor(environment, batchId, "attache.message.sent", count: 2)
        let completions = events.filter { $0.type == "attache.batch.completed" }
        #expect(completions.map { $0.fileIds(in: "successful") } == [["a"], ["a", "b"]])
        #expect(messages(environment, batchId: batchId).map { $0.data.attachments.map(\.name) } == [["a.jpg"], ["b.jpg"]])
    }

    @Test func aFailedFileIsRetriedByARetryControl() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-retry-\(UUID().uuidString.prefix(8))"
        let rule = environment.services.store.faults.inject(.serverError(status: 503, retryAfter: nil), target: .fileId("flaky"), times: 3)
        defer { environment.services.store.faults.remove(rule) }
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.inline("flaky", name: "flaky.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 2000, seed: 5)),
        ], send: "manual"))])
        let first = try await waitFor(environment, batchId, "attache.batch.completed")
        let failures = first.filter { $0.type == "attache.file.failed" }
        #expect(failures.map { $0.data["willRetry"]?.boolValue } == [true, true, false])
        #expect(failures.allSatisfy { $0.errorCode == "ERR_S3_UPLOAD_FAILED" })
        #expect(first.last?.fileIds(in: "failed") == ["flaky"])

        try await produce(environment, [(batchId, Jobs.control("retry", batchId: batchId, fileId: "flaky"))])
        let second = try await waitFor(environment, batchId, "attache.batch.completed", count: 2)
        #expect(second.last?.fileIds(in: "successful") == ["flaky"])
        #expect(messages(environment, batchId: batchId).isEmpty, "manual mode waits for a send control")

        try await produce(environment, [(batchId, Jobs.control("send", batchId: batchId))])
        _ = try await waitFor(environment, batchId, "attache.message.sent")
        #expect(messages(environment, batchId: batchId).map(\.type) == ["file"])
    }

    @Test func removeAndClearControlsDropFilesSilently() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-remove-\(UUID().uuidString.prefix(8))"
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.inline("keep", name: "keep.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 3000, seed: 6)),
            Jobs.inline("drop", name: "drop.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 3000, seed: 7)),
        ], send: "none"))])
        _ = try await waitFor(environment, batchId, "attache.batch.completed")
        try await produce(environment, [(batchId, Jobs.control("remove", batchId: batchId, fileId: "drop")),
                                  (batchId, Jobs.control("clear", batchId: batchId))])
        let events = try await waitFor(environment, batchId, "attache.file.removed", count: 2)
        #expect(events.filter { $0.type == "attache.file.removed" }.map(\.fileId) == ["drop", "keep"])
        #expect(!events.contains { $0.type == "attache.file.failed" || $0.type == "attache.file.rejected" })
    }

    @Test func aFileReAddedAfterRemoveIsUploadedAndSentUnderNewIds() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-readd-\(UUID().uuidString.prefix(8))"
        let file = { (seed: Int) in
            Jobs.inline("f1", name: "f1.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 3000, seed: seed))
        }
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [file(8)]))])
        _ = try await waitFor(environment, batchId, "attache.message.sent")
        try await produce(environment, [(batchId, Jobs.control("remove", batchId: batchId, fileId: "f1")),
                                        (batchId, Jobs.upload(batchId: batchId, files: [file(9)]))])
        let events = try await waitFor(environment, batchId, "attache.message.sent", count: 2)
        let uploaded = events.filter { $0.type == "attache.file.uploaded" }
        #expect(uploaded.count == 2)
        #expect(Set(uploaded.map(\.id)).count == 2, "a consumer deduplicating by id would drop the second upload")
        let sent = events.filter { $0.type == "attache.message.sent" }.compactMap { $0.data["muid"]?.stringValue }
        #expect(Set(sent).count == 2)
        let delivered = messages(environment, batchId: batchId)
        #expect(delivered.count == 2, "the chat API drops a message whose muid it has seen: the new file would never arrive")
        #expect(Set(delivered.compactMap(\.muid)).count == 2)
    }

    @Test func aClearedBatchReCreatedByAJobContinuesItsSequence() async throws {
        let (environment, _) = try await setUp()
        let batchId = "e2e-recreate-\(UUID().uuidString.prefix(8))"
        let file = { (fileId: String, seed: Int) in
            Jobs.inline(fileId, name: "\(fileId).jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 2000, seed: seed))
        }
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [file("a", 10), file("b", 11)], send: "none"))])
        _ = try await waitFor(environment, batchId, "attache.batch.completed")
        try await produce(environment, [(batchId, Jobs.control("clear", batchId: batchId))])
        _ = try await waitFor(environment, batchId, "attache.file.removed", count: 2)
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [file("a", 12)], send: "none"))])
        let events = try await eventually("the re-created batch of \(batchId) to complete", timeout: .seconds(60)) {
            let events = try await environment.events(of: batchId)
            let recreated = events.last { $0.type == "attache.batch.completed" }?.fileIds(in: "successful") == ["a"]
                && events.filter { $0.type == "attache.file.uploaded" }.count == 3
            return recreated ? events : nil
        }
        let sequences = events.map(\.sequence)
        #expect(sequences == Array(1...events.count), "the re-created batch goes on from the cleared one's sequence: \(sequences)")
        #expect(Set(events.map(\.id)).count == events.count, "no event id repeats")
        #expect(events.last?.fileIds(in: "successful") == ["a"])
    }

    @Test func invalidRecordsGoToTheDeadLetterTopicAndTheWorkerCarriesOn() async throws {
        let (environment, worker) = try await setUp()
        let tag = UUID().uuidString.prefix(8)
        try await produce(environment, [("dlq-\(tag)-a", "this is not json"),
                                  ("dlq-\(tag)-b", #"{"kind":"explode"}"#),
                                  ("dlq-\(tag)-c", #"{"kind":"upload","files":[]}"#)])
        let letters = try await eventually("three dead letters") {
            let letters = try await Kcat.consume(brokers: environment.brokers, topic: "attache.jobs.dlq").filter { $0.key.hasPrefix("dlq-\(tag)") }
            return letters.count >= 3 ? letters.sorted { $0.key < $1.key } : nil
        }
        #expect(letters.map(\.value) == ["this is not json", #"{"kind":"explode"}"#, #"{"kind":"upload","files":[]}"#])
        #expect(letters.allSatisfy { $0.headers.contains("attache.source.topic=attache.jobs") && $0.headers.contains("attache.source.offset=") })
        #expect(letters[1].headers.contains("attache.error=unknown kind 'explode'"))
        #expect(letters[2].headers.contains("attache.error=receiver is required"))
        let invalid = try await eventually("three job.invalid events") {
            let events = try await environment.events().filter { $0.type == "attache.job.invalid" && $0.subject.hasPrefix("dlq-\(tag)") }
            return events.count >= 3 ? events : nil
        }
        // Different keys land on different partitions, so only the per-record pairing is ordered.
        #expect(invalid.sorted { $0.subject < $1.subject }.map { $0.data["reason"]?.stringValue }
                == ["the record is not valid JSON", "unknown kind 'explode'", "receiver is required"])
        #expect(worker.isRunning)

        let batchId = "e2e-after-dlq-\(tag)"
        try await produce(environment, [(batchId, Jobs.upload(batchId: batchId, files: [
            Jobs.inline("ok", name: "ok.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 1000, seed: 8)),
        ], send: "none"))])
        _ = try await waitFor(environment, batchId, "attache.batch.completed")
    }
}
