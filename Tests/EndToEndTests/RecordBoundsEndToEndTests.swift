import Foundation
import KafkaIO
import TestSupport
import Testing

/// Record headers are input with limits (DESIGN §2.1): a later-version `traceparent` is carried in its 55-character
/// form when the whole header is at most 256 printable bytes, and ignored otherwise — never copied whole into events,
/// where a megabyte of it once made every event of the job too large for the broker and stopped the worker.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RecordBoundsEndToEndTests {
    static let worker = Task { try await OwnTopicsWorker.start("bounds") }
    static let head = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    private static func job(_ batchId: String, seed: Int) -> String {
        Jobs.upload(batchId: batchId, files: [
            Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 6_000, seed: seed)),
        ], send: "none")
    }

    @Test func aTraceparentWithAMegabyteTailIsIgnoredTheJobRunsAndTheWorkerKeepsApplyingJobs() async throws {
        let worker = try await Self.worker.value
        let batchId = "e2e-bounds-\(UUID().uuidString.prefix(8))"
        try await worker.produce(Self.job(batchId, seed: 1), key: batchId, headers: [
            KafkaHeader("traceparent", Self.head + "-" + String(repeating: "x", count: 1 << 20)),
            KafkaHeader("tracestate", "vendor=opaque"),
        ])
        let records = try await worker.records(of: batchId, until: "attache.batch.completed")
        let events = records.compactMap { ReceivedEvent(json: $0.value) }
        #expect(events.contains { $0.type == "attache.file.uploaded" && $0.fileId == "photo" })
        #expect(events.allSatisfy { $0.traceparent == nil && $0.tracestate == nil }, "a header over 256 bytes is ignored whole")
        #expect(records.allSatisfy { !$0.headers.contains("trace") })
        #expect(records.allSatisfy { $0.value.utf8.count < 64 * 1024 })

        let later = "e2e-bounds-later-\(UUID().uuidString.prefix(8))"
        try await worker.produce(Self.job(later, seed: 2), key: later)
        let laterEvents = try await worker.records(of: later, until: "attache.batch.completed").compactMap { ReceivedEvent(json: $0.value) }
        #expect(laterEvents.contains { $0.type == "attache.file.uploaded" })
        #expect(worker.process.isRunning, "log:\n\(worker.process.standardError.suffix(3000))")
        #expect(try await worker.health() == 200)
    }

    @Test func aLaterVersionTraceparentIsCarriedAsItsFirst55Characters() async throws {
        let worker = try await Self.worker.value
        let batchId = "e2e-bounds-cut-\(UUID().uuidString.prefix(8))"
        let header = Self.head + "-" + String(repeating: "f", count: 256 - 56)
        try await worker.produce(Self.job(batchId, seed: 3), key: batchId, headers: [KafkaHeader("traceparent", header)])
        let records = try await worker.records(of: batchId, until: "attache.batch.completed")
        let events = records.compactMap { ReceivedEvent(json: $0.value) }
        #expect(events.contains { $0.type == "attache.file.uploaded" })
        for (record, event) in zip(records, events) {
            #expect(event.traceparent == Self.head, "\(event.type) carries the 55-character form, its version kept")
            #expect(record.headers.contains("traceparent=\(Self.head)") && !record.headers.contains("traceparent=\(header)"))
        }
    }
}
