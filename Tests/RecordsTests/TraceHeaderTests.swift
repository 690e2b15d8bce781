import Foundation
import KafkaIO
import Testing
import UploadEngine
import WireFormat
@testable import Records


/// A job record's headers are input too (DESIGN §2.1): `traceparent` is carried only in its 55-character form — a
/// later version cut to its first 55 characters when they parse and the whole header is at most 256 printable
/// bytes — and `tracestate` only when it is at most 512 printable bytes. Any other value is ignored, never an error.
@Suite struct TraceHeaderTests {
    static let head = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let version00 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// The trace context the decoder gives the files of a job with these headers.
    private func trace(traceparent: String?, tracestate: String? = nil) throws -> TraceContext? {
        let headers = [("traceparent", traceparent), ("tracestate", tracestate)].compactMap { name, value in value.map { KafkaHeader(name, $0) } }
        let record = #"{"receiver": {"id": "u1", "type": "user"}, "files": [{"fileId": "a", "source": {"data": "aGk="}}, "#
            + #"{"fileId": "b", "source": {"data": "aGk="}}]}"#
        let decoded = try JobDecoder(limits: UploadLimits()).decode(Data(record.utf8), headers: headers, from: JobDecoder.Provenance(
            topic: "attache.jobs", partition: 0, offset: 1, key: nil)).get()
        guard case .upload(let job) = decoded.command else { throw InvalidJob("not an upload") }
        #expect(job.files[0].trace == job.files[1].trace, "every file of the job carries it")
        return job.files[0].trace
    }

    private static func laterVersion(totalBytes: Int) -> String {
        head + "-" + String(repeating: "x", count: totalBytes - head.utf8.count - 1)
    }

    @Test func aVersion00TraceparentIsCarriedAsItIs() throws {
        #expect(try trace(traceparent: Self.version00)?.traceparent == Self.version00)
    }

    @Test(arguments: [56, 200, 256])
    func aLaterVersionWithATailIsCutToItsFirst55CharactersKeepingItsVersion(totalBytes: Int) throws {
        #expect(try trace(traceparent: Self.laterVersion(totalBytes: totalBytes))?.traceparent == Self.head)
    }

    @Test(arguments: [257, 1 << 20])
    func aTraceparentHeaderOver256BytesIsIgnoredAndTheJobRunsAsUsual(totalBytes: Int) throws {
        #expect(try trace(traceparent: Self.laterVersion(totalBytes: totalBytes), tracestate: "k=v") == nil)
    }

    @Test(arguments: [head + "-tab\there", head + "-é", head + "-del\u{7F}", version00 + "-tail", version00.uppercased()])
    func aTraceparentThatIsNotPrintableOrNotWellFormedIsIgnored(header: String) throws {
        #expect(try trace(traceparent: header) == nil)
    }

    @Test func aTracestateIsCarriedUpTo512PrintableBytesAndDroppedPastThem() throws {
        let full = String(repeating: "a", count: 512)
        #expect(try trace(traceparent: Self.version00, tracestate: full)?.tracestate == full)
        let over = try trace(traceparent: Self.version00, tracestate: full + "a")
        #expect(over?.traceparent == Self.version00, "the traceparent stays")
        #expect(over?.tracestate == nil)
        #expect(try trace(traceparent: Self.version00, tracestate: "k=é")?.tracestate == nil, "not printable ASCII")
    }

    @Test func headerBytesThatAreNotUTF8AreIgnored() {
        var header = KafkaHeader("traceparent", Self.version00)
        header.value?.append(0xFF)
        #expect(TraceContext(kafkaHeaders: [header]) == nil)
    }
}
