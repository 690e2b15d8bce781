import Foundation
import Testing
import WireFormat
@testable import UploadEngine

/// W3C trace context: which `traceparent` values are taken, and how a request's context reaches its events, its
/// upload and its snapshot.
@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test(arguments: [valid, "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"])
    func aWellFormedTraceparentIsTaken(_ value: String) {
        #expect(TraceContext(traceparent: value)?.traceparent == value)
    }

    @Test(arguments: ["-what-the-future-adds", "-", "-" + String(repeating: "x", count: 1 << 20)])
    func aLaterVersionIsCarriedAsItsFirst55CharactersWithItsOwnVersion(tail: String) {
        let head = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(TraceContext(traceparent: head + tail)?.traceparent == head)
    }

    @Test(arguments: [
        "", "garbage", valid.uppercased(),
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff is invalid
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
        valid + "-extra",                                            // version 00 has nothing after the flags
        "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",  // a dash out of place
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",  // a later version still needs a dash after the flags
        valid + "\r\nx-injected: 1",
    ])
    func aMalformedTraceparentIsIgnored(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    /// Its length is the decoder's to judge, at the header (`TraceHeaderTests`).
    @Test func aTracestateIsKeptTrimmedAndOnlyWhenItIsPrintable() {
        #expect(TraceContext(traceparent: Self.valid, tracestate: " rojo=00f067aa0ba902b7,congo=t61rcWkgMzE ")?.tracestate
                == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        #expect(TraceContext(traceparent: Self.valid, tracestate: "a=1\nb=2")?.tracestate == nil)
        #expect(TraceContext(traceparent: Self.valid, tracestate: "   ")?.tracestate == nil)
        #expect(TraceContext(traceparent: "bad", tracestate: "a=1") == nil, "no tracestate without a traceparent")
    }

    @Test func aRequestsTraceGoesWithItsEventsAndUploadsAndSurvivesASnapshot() throws {
        let trace = try #require(TraceContext(traceparent: Self.valid, tracestate: "k=v"))
        var harness = BatchHarness(concurrency: 2)
        var traced = inline("f1")
        traced.trace = trace
        harness.add([traced], request: "r1")
        harness.add([inline("f2")], request: "r2")
        harness.stageAll()
        harness.presignAll()
        #expect(harness.uploads.first { $0.transfer.target.fileURL.contains("f1") }?.transfer.trace == trace)
        #expect(harness.uploads.first { $0.transfer.target.fileURL.contains("f2") }?.transfer.trace == nil)
        harness.settleAll()
        var events = harness.events
        harness.batch.stampSequence(&events)
        #expect(!events.isEmpty)
        for event in events where event.fileId != nil {
            #expect(event.trace == (event.requestId == "r1" ? trace : nil), "\(event.kind) of \(event.requestId)")
        }

        let bytes = try #require(BatchSnapshot.encode(harness.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        let restored = try BatchSnapshot.decode(bytes, configuration: harness.batch.configuration).batch
        #expect(restored.trace(of: "r1") == trace)
        #expect(restored.trace(of: "r2") == nil)
    }
}
