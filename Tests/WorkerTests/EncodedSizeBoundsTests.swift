import BoundsProbe
import Foundation
import KafkaIO
@testable import Records
import Testing
import UploadEngine
@testable import Worker

/// DESIGN §2.1 "Bounds": with every string a record supplies held to its limit at decoding, no accepted record can
/// make an event (with its key and headers) or a snapshot that does not fit `events.maxBytes` — nothing is left for
/// the encoders to summarise. Driven here with the worst case, deterministically; `FuzzEventBounds` drives the same
/// probe with jobs made from a fuzzer's bytes.
@Suite struct EncodedSizeBoundsTests {
    private let probe = EncodedSizeProbe()

    @Test func theLargestAcceptedJobMakesNoEventOrSnapshotOverEventsMaxBytes() throws {
        // Two such jobs for the batch: more rejected files than a result lists.
        let report = probe.run([.worstCase(filePrefix: "a"), .worstCase(filePrefix: "b")])
        #expect(report.oversized(than: CloudEventEncoder.defaultMaxBytes).isEmpty,
                "\(report.oversized(than: CloudEventEncoder.defaultMaxBytes))")
        // It got as far as the contract's worst events: the most rejections a result lists, uploads, retries given
        // up, sent and failed messages, and a snapshot after every change of the batch's durable state.
        let result = try #require(report.results[JobSpec.worstCase().batchId ?? ""])
        #expect(result.rejected.count == UploadResult.rejectedLimit)
        #expect(result.rejectedTotal > UploadResult.rejectedLimit)
        #expect(!result.successful.isEmpty && !result.failed.isEmpty)
        let kinds = Set(report.measures.map(\.what))
        #expect(kinds.isSuperset(of: ["attache.file.uploaded", "attache.file.rejected", "attache.file.failed",
                                      "attache.batch.completed", "attache.message.sent", "attache.message.failed", "snapshot"]),
                "\(kinds)")
        let largest = try #require(report.measures.max { $0.bytes < $1.bytes })
        #expect(largest.bytes < CloudEventEncoder.defaultMaxBytes / 2, "a wide margin: \(largest)")
    }

    @Test func everyPieceOfTheWorstCaseIsAtItsLimitAndAcceptedWhole() throws {
        let spec = JobSpec.worstCase()
        let decoded = try JobDecoder(limits: UploadLimits()).decode(spec.value, headers: spec.headers, from: JobDecoder.Provenance(
            topic: "attache.jobs", partition: 0, offset: 0, key: spec.key)).get()
        guard case .upload(let job) = decoded.command else { Issue.record("not an upload"); return }
        #expect(!decoded.needsRekey)
        #expect(job.batchId.utf8.count == RecordField.batchId.maxBytes && job.requestId.utf8.count == RecordField.requestId.maxBytes)
        #expect(job.files.count == 100)
        for file in job.files {
            switch file.source {
            case .url(let url): #expect(url.utf8.count == RecordField.url.maxBytes)
            case .path(let path): #expect(path.utf8.count == RecordField.path.maxBytes)
            default: Issue.record("\(file.fileId): \(file.source)")
            }
        }
        #expect(job.files.allSatisfy { $0.fileId.utf8.count == 128 && $0.name.utf8.count == 255 && $0.mimeType?.utf8.count == 255 })
        let trace = try #require(job.files.first?.trace)
        #expect(trace.traceparent == "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(trace.tracestate?.utf8.count == RecordField.tracestate.maxBytes)
    }

    @Test func aRefusedRecordsEventStaysBoundedWhateverItsKeyAndHeaders() throws {
        var spec = JobSpec.worstCase()
        spec.receiverId = ""
        spec.key = String(repeating: "k", count: 1 << 20)
        spec.traceparent = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + String(repeating: "x", count: 1 << 20)
        spec.tracestate = String(repeating: "s", count: 1 << 20)
        let report = probe.run([spec])
        let event = try #require(report.measures.only)
        #expect(event.what == "attache.job.invalid")
        #expect(event.bytes < 8 * 1024, "the megabyte key and headers stay out of it: \(event)")
    }
}

private extension Array {
    var only: Element? { count == 1 ? first : nil }
}
