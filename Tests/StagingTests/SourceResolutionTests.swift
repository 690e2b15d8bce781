import EmbeddedHTTP
import Foundation
import S3
import Synchronization
import Testing
import WireFormat

/// URL sources resolve in order: cache → URL → on 401/403/410 exactly one re-signed URL → unresolvable.
@Suite(.timeLimit(.minutes(1))) struct SourceResolutionTests {
    private func resignAnswering(_ fixture: StagingFixture, _ answer: @escaping @Sendable ([UInt8]) -> ServerResponse) {
        fixture.server.route("/resign") { _, body in answer(body) }
    }

    @Test func aSourceRefusedWith403IsStagedFromTheReSignedURL() async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/expired.jpg", Array("expired".utf8), status: 403)
        fixture.server.serve("/fresh.jpg", SampleBytes.jpeg)
        let fresh = fixture.url("/fresh.jpg?sig=new")
        resignAnswering(fixture) { _ in .init(status: 200, contentType: "application/json", body: Array("{\"url\": \"\(fresh)\"}".utf8)) }
        let original = fixture.url("/expired.jpg?sig=old")

        let staged = try await fixture.stage(.url(original), mimeType: "image/jpeg")

        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(SampleBytes.jpeg)))
        #expect(staged.size == Int64(SampleBytes.jpeg.count))
        let resign = try #require(fixture.server.requests.first { $0.head.path == "/resign" })
        #expect(try JSONParser.parse(resign.body) == ["url": .string(original), "batchId": "batch-1", "fileId": "f1"])
        #expect(resign.head.header("Content-Type") == "application/json")
        #expect(fixture.server.requests.map(\.head.path) == ["/expired.jpg", "/resign", "/fresh.jpg"])
        await fixture.stager.release(staged)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test(arguments: [401, 403, 410])
    func anExpiredSourceIsReSignedExactlyOnce(_ status: Int) async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/expired.jpg", [], status: status)
        let again = fixture.url("/expired.jpg?sig=again")
        resignAnswering(fixture) { _ in .init(status: 200, contentType: "application/json", body: Array("{\"url\": \"\(again)\"}".utf8)) }

        let error = await fixture.stagingError(.url(fixture.url("/expired.jpg")))

        #expect(error?.code == .sourceUnresolvable)
        #expect(error?.isRetryable == false)
        #expect(fixture.server.hits("/resign") == 1)
        #expect(fixture.server.hits("/expired.jpg") == 2)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func withoutAReSignEndpointAnExpiredSourceIsUnresolvableAtOnce() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/gone.jpg", [], status: 410)

        let error = await fixture.stagingError(.url(fixture.url("/gone.jpg")))

        #expect(error?.code == .sourceUnresolvable)
        #expect(fixture.server.requests.map(\.head.path) == ["/gone.jpg"])
    }

    @Test func aMissingSourceIsNotReSigned() async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }

        let error = await fixture.stagingError(.url(fixture.url("/missing.jpg")))

        #expect(error?.code == .sourceUnresolvable)
        #expect(fixture.server.hits("/resign") == 0)
    }

    @Test(arguments: [500, 502, 503, 408, 429])
    func aServerErrorFailsTheFileRetryablyWithoutReSigning(_ status: Int) async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/busy.jpg", [], status: status, headers: [HTTPHeader("Retry-After", "7")])

        let error = await fixture.stagingError(.url(fixture.url("/busy.jpg")))

        #expect(error?.code == .sourceFetchFailed)
        #expect(error?.isRetryable == true)
        #expect(error?.retryAfter == .seconds(7))
        #expect(fixture.server.hits("/resign") == 0)
    }

    @Test func aNetworkFailureFailsTheFileRetryably() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.route("/reset.jpg") { _, _ in .init(status: 200, body: .stream(length: 1000, producer: FailingProducer())) }

        let error = await fixture.stagingError(.url(fixture.url("/reset.jpg")))

        #expect(error?.code == .sourceFetchFailed)
        #expect(error?.isRetryable == true)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aReSignEndpointThatFailsFailsTheFileRetryably() async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/expired.jpg", [], status: 403)
        resignAnswering(fixture) { _ in .text(503, "later\n") }

        let error = await fixture.stagingError(.url(fixture.url("/expired.jpg")))

        #expect(error?.code == .sourceFetchFailed)
        #expect(error?.isRetryable == true)
    }

    @Test func aReSignEndpointThatRefusesOrAnswersNoURLLeavesTheSourceUnresolvable() async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/expired.jpg", [], status: 403)
        let answers = Mutex([ServerResponse.text(404, "unknown\n"),
                             .init(status: 200, contentType: "application/json", body: Array("{\"href\": \"x\"}".utf8))])
        resignAnswering(fixture) { _ in answers.withLock { $0.removeFirst() } }

        let refused = await fixture.stagingError(.url(fixture.url("/expired.jpg")))
        let empty = await fixture.stagingError(.url(fixture.url("/expired.jpg")))

        #expect(refused?.code == .sourceUnresolvable)
        #expect(empty?.code == .sourceUnresolvable)
    }

    @Test func aReSignedURLIsGuardedLikeAnyOther() async throws {
        var options = StagingFixture.Options()
        options.resign = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        fixture.server.serve("/expired.jpg", [], status: 403)
        let answers = Mutex(["file:///etc/passwd", "http://169.254.169.254/latest/meta-data/"])
        resignAnswering(fixture) { _ in
            let url = answers.withLock { $0.removeFirst() }
            return .init(status: 200, contentType: "application/json", body: Array("{\"url\": \"\(url)\"}".utf8))
        }

        let scheme = await fixture.stagingError(.url(fixture.url("/expired.jpg")))
        let metadata = await fixture.stagingError(.url(fixture.url("/expired.jpg")))

        #expect(scheme?.code == .sourceForbidden)
        #expect(metadata?.code == .sourceForbidden)
        #expect(metadata?.message.contains("169.254.169.254") == true)
    }

    @Test func progressIsReportedUpToTheAnnouncedLengthAndNeverBackwards() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let bytes = SampleBytes.pdf + SampleBytes.filler(300_000)
        fixture.server.serve("/notes.pdf", bytes)
        let reports = Mutex<[(Int64, Int64)]>([])

        let staged = try await fixture.stage(.url(fixture.url("/notes.pdf")), mimeType: "application/pdf") { received, total in
            reports.withLock { $0.append((received, total)) }
        }
        await fixture.stager.release(staged)

        let seen = reports.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.1 == Int64(bytes.count) })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.0 < $1.0 })
        #expect(seen.last?.0 == Int64(bytes.count))
    }

    @Test func noProgressIsReportedWhenTheLengthIsUnknown() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/notes.pdf", SampleBytes.pdf + SampleBytes.filler(200_000), length: false)
        let reports = Mutex(0)

        let staged = try await fixture.stage(.url(fixture.url("/notes.pdf"))) { _, _ in reports.withLock { $0 += 1 } }
        await fixture.stager.release(staged)

        #expect(staged.size == Int64(SampleBytes.pdf.count + 200_000))
        #expect(reports.withLock { $0 } == 0)
    }
}

/// A body that breaks off after its first block; one connection's thread uses it.
final class FailingProducer: HTTPBodyProducer {
    private var sent = false

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard !sent else { return .failure }
        sent = true
        buffer.initializeMemory(as: UInt8.self, repeating: 0x61)
        return .bytes(min(buffer.count, 100))
    }
}
