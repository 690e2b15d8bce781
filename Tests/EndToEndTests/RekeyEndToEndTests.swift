import Foundation
import KafkaIO
import TestSupport
import Testing
import WireFormat

/// DESIGN §2.1 "A job's record key is its batchId": a job or control that names a `batchId` under another key, or
/// none, is produced again to the jobs topic keyed by its batch id (value and headers unchanged, plus
/// `attache.rekeyed-from`), the original is committed once that copy is acknowledged, and the batch applies the copy.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RekeyEndToEndTests {
    static let worker = Task { try await OwnTopicsWorker.start("rekey") }

    /// The jobs topic's records keyed `key`, as kcat's JSON envelopes.
    private func jobsRecords(keyed key: String) async throws -> [JSONValue] {
        let environment = try await EndToEndEnvironment.shared.value
        let worker = try await Self.worker.value
        return try await Kcat.envelopes(brokers: environment.brokers, topic: worker.jobsTopic).compactMap { line in
            guard let envelope = try? JSONParser.parse(line.utf8), envelope["key"]?.stringValue == key else { return nil }
            return envelope
        }
    }

    @Test(arguments: ["another-key", nil] as [String?])
    func aJobKeyedOtherwiseThanItsBatchIdIsReKeyedAppliedAndCommitted(key: String?) async throws {
        let worker = try await Self.worker.value
        let batchId = "e2e-rekey-\(UUID().uuidString.prefix(8))"
        let value = Jobs.upload(batchId: batchId, files: [
            Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 5_000, seed: 9)),
        ], send: "none")
        let original = try await worker.produce(value, key: key.map { "\($0)-\(batchId)" }, headers: [KafkaHeader("x-origin", "backend")])

        let events = try await worker.records(of: batchId, until: "attache.batch.completed").compactMap { ReceivedEvent(json: $0.value) }
        #expect(events.filter { $0.type == "attache.file.uploaded" }.map(\.fileId) == ["photo"], "applied once")

        let copies = try await jobsRecords(keyed: batchId)
        let copy = try #require(copies.only, "one copy keyed by the batch id")
        #expect(copy["payload"]?.stringValue == value, "the value unchanged")
        let headers = copy["headers"]?.strings ?? []
        #expect(headers == ["x-origin", "backend", "attache.rekeyed-from", "\(worker.jobsTopic)/\(original.partition)/\(original.offset)"])

        let committed = try await eventually("the original's commit", timeout: .seconds(30)) {
            try await worker.committedOffset(partition: original.partition).flatMap { $0 > original.offset ? $0 : nil }
        }
        #expect(committed > original.offset)
    }

    @Test func aControlKeyedOtherwiseReachesItsBatch() async throws {
        let worker = try await Self.worker.value
        let batchId = "e2e-rekey-control-\(UUID().uuidString.prefix(8))"
        try await worker.produce(Jobs.upload(batchId: batchId, files: [
            Jobs.inline("doc", name: "doc.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 3_000, seed: 4)),
        ], send: "manual"), key: batchId)
        _ = try await worker.records(of: batchId, until: "attache.batch.completed")

        try await worker.produce(Jobs.control("send", batchId: batchId), key: "elsewhere-\(batchId)")
        let records = try await worker.records(of: batchId, until: "attache.message.sent")
        #expect(records.compactMap { ReceivedEvent(json: $0.value) }.filter { $0.type == "attache.message.sent" }.count == 1)
        let copies = try await jobsRecords(keyed: batchId)
        #expect(copies.count == 2, "the job as produced, and the control's copy")
        #expect(copies.contains { ($0["headers"]?.strings ?? []).contains("attache.rekeyed-from") })
    }
}

private extension Array {
    var only: Element? { count == 1 ? first : nil }
}
