import DevServices
import Foundation
import KafkaIO
import TestSupport
import Testing

/// W3C trace context from a job's Kafka headers to everything it causes (DESIGN §2.2): its events, as attributes and
/// headers, and its presign, upload and message requests, as HTTP headers; a malformed `traceparent` is ignored.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TraceContextEndToEndTests {
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// One worker of its own group on the shared broker, with its own topics.
    static let worker = Task { try await OwnTopicsWorker.start("trace") }

    @Test func aJobsTraceContextReachesItsEventsAndItsHTTPCalls() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let batchId = "e2e-trace-\(UUID().uuidString.prefix(8))"
        let job = Jobs.upload(batchId: batchId, files: [
            Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 20_000, seed: 4)),
            Jobs.inline("empty", name: "empty.pdf", mimeType: "application/pdf", bytes: Data()),
        ])
        let worker = try await Self.worker.value
        try await worker.produce(job, key: batchId, headers: [KafkaHeader("traceparent", Self.traceparent),
                                                              KafkaHeader("tracestate", "vendor=opaque")])
        let records = try await worker.records(of: batchId, until: "attache.message.sent")
        let events = records.compactMap { ReceivedEvent(json: $0.value) }
        #expect(Set(events.map(\.type)).isSuperset(of: ["attache.file.progress", "attache.file.uploaded", "attache.file.rejected",
                                                        "attache.batch.completed", "attache.message.sent"]))
        for (record, event) in zip(records, events) {
            #expect(event.traceparent == Self.traceparent && event.tracestate == "vendor=opaque", "\(event.type) carries the trace")
            #expect(record.headers.contains("traceparent=\(Self.traceparent)"), "\(event.type)'s record has the header: \(record.headers)")
            #expect(record.headers.contains("tracestate=vendor=opaque"))
        }
        let presigns = environment.services.presign.calls.filter { $0.batchId == batchId }
        #expect(!presigns.isEmpty && presigns.allSatisfy { $0.traceparent == Self.traceparent })
        let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/\(batchId)/") }
        #expect(!puts.isEmpty && puts.allSatisfy { $0.traceparent == Self.traceparent })
        let posts = environment.services.messages.requests.filter { $0.message?.data.metadata?["batchId"] == .string(batchId) }
        #expect(!posts.isEmpty && posts.allSatisfy { $0.traceparent == Self.traceparent })
    }

    @Test func aMalformedTraceparentIsIgnoredAndTheJobRunsAsUsual() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let batchId = "e2e-trace-bad-\(UUID().uuidString.prefix(8))"
        let job = Jobs.upload(batchId: batchId, files: [
            Jobs.inline("photo", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 8_000, seed: 5)),
        ], send: "none")
        // Upper-case hex is not a valid traceparent.
        let worker = try await Self.worker.value
        try await worker.produce(job, key: batchId, headers: [KafkaHeader("traceparent", Self.traceparent.uppercased()),
                                                              KafkaHeader("tracestate", "vendor=opaque")])
        let records = try await worker.records(of: batchId, until: "attache.batch.completed")
        let events = records.compactMap { ReceivedEvent(json: $0.value) }
        #expect(events.contains { $0.type == "attache.file.uploaded" })
        #expect(events.allSatisfy { $0.traceparent == nil && $0.tracestate == nil })
        #expect(records.allSatisfy { !$0.headers.contains("trace") })
        let puts = environment.services.store.requests.filter { $0.method == "PUT" && $0.path.hasPrefix("/\(batchId)/") }
        #expect(!puts.isEmpty && puts.allSatisfy { $0.traceparent == nil })
    }
}
