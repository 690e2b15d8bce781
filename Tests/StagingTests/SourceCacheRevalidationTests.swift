import EmbeddedHTTP
import Foundation
import S3
import Testing
import UploadEngine
import WireFormat

/// The cache never serves bytes the job's own URL is not authorised to fetch: an entry is found by the URL without
/// its query, but reused only after a conditional GET of the full URL is answered 304.
@Suite(.timeLimit(.minutes(1))) struct SourceCacheRevalidationTests {
    private func cachedFixture(resign: Bool = false) async throws -> StagingFixture {
        var options = StagingFixture.Options()
        options.cacheMax = 0
        options.resign = resign
        return try await StagingFixture(options)
    }

    private func contents(_ staged: StagedFile) throws -> [UInt8] {
        Array(try staged.contents())
    }

    @Test func twoURLsThatDifferOnlyInTheirQueryGetTheirOwnBytes() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        let documents = ["1": SampleBytes.filler(700, seed: 1), "2": SampleBytes.filler(900, seed: 2)]
        fixture.server.route("/download") { head, _ in
            let id = head.queryValue("id") ?? ""
            guard let bytes = documents[id] else { return .text(404, "no such id\n") }
            let etag = "\"doc-\(id)\""
            if head.header("If-None-Match") == etag { return .init(status: 304, headers: [HTTPHeader("ETag", etag)]) }
            return .init(status: 200, headers: [HTTPHeader("ETag", etag)], body: .bytes(bytes))
        }

        let one = try await fixture.stage(.url(fixture.url("/download?id=1")))
        let two = try await fixture.stage(.url(fixture.url("/download?id=2")))
        let oneAgain = try await fixture.stage(.url(fixture.url("/download?id=1")))

        #expect(try contents(one) == documents["1"])
        #expect(try contents(two) == documents["2"], "not the bytes cached for ?id=1")
        #expect(two.sha256 == SHA256Hasher.hex(of: Data(documents["2"]!)))
        #expect(try contents(oneAgain) == documents["1"], "the entry of ?id=2 replaced that of ?id=1, and ?id=1 its own again")
        for staged in [one, two, oneAgain] { await fixture.stager.release(staged) }
    }

    @Test func aLastModifiedValidatorIsSentAsIfModifiedSinceAndA304ReusesTheEntry() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        let stamp = "Tue, 01 Dec 2026 08:00:00 GMT"
        fixture.server.serveObject("/photo.jpg", SampleBytes.jpeg, lastModified: stamp)

        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/photo.jpg?sig=a"))))
        let second = try await fixture.stage(.url(fixture.url("/photo.jpg?sig=b")))

        let revalidation = try #require(fixture.server.requests.last)
        #expect(revalidation.head.header("If-Modified-Since") == stamp)
        #expect(revalidation.head.header("If-None-Match") == nil)
        #expect(fixture.server.fetches("/photo.jpg") == 1)
        #expect(try contents(second) == SampleBytes.jpeg)
        await fixture.stager.release(second)
    }

    @Test func a200ToTheConditionalGETReplacesTheEntryAndItsBytesAreStaged() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.serveObject("/report.pdf", SampleBytes.pdf, etag: "\"v1\"")
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/report.pdf"))))
        let revised = SampleBytes.pdf + SampleBytes.filler(500)
        fixture.server.serveObject("/report.pdf", revised, etag: "\"v2\"")

        let second = try await fixture.stage(.url(fixture.url("/report.pdf")))
        let third = try await fixture.stage(.url(fixture.url("/report.pdf")))

        #expect(try contents(second) == revised)
        #expect(try contents(third) == revised)
        let asked = fixture.server.requests.map { $0.head.header("If-None-Match") }
        #expect(asked == [nil, "\"v1\"", "\"v2\""])
        #expect(fixture.stager.cache?.usage.entries == 1)
        await fixture.stager.release(second)
        await fixture.stager.release(third)
        #expect(fixture.stagingFiles.filter { $0.hasSuffix(".cache") }.count == 1, "the replaced entry's file is gone")
    }

    @Test func anEntryWithoutAValidatorIsNeverReused() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.serve("/plain.jpg", SampleBytes.jpeg)

        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/plain.jpg"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/plain.jpg"))))

        #expect(fixture.server.fetches("/plain.jpg") == 2)
        #expect(fixture.server.requests.allSatisfy { !$0.isConditional })
        #expect(fixture.stager.cache?.usage.entries == 0)
    }

    @Test(arguments: [401, 403])
    func aForgedSignatureOnACachedPathIsNotServedFromTheCache(_ status: Int) async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.route("/private.jpg") { head, _ in
            guard head.queryValue("sig") == "good" else { return .text(status, "bad signature\n") }
            if head.header("If-None-Match") == "\"v1\"" { return .init(status: 304, headers: [HTTPHeader("ETag", "\"v1\"")]) }
            return .init(status: 200, headers: [HTTPHeader("ETag", "\"v1\"")], body: .bytes(SampleBytes.jpeg))
        }
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/private.jpg?sig=good"))))

        let error = await fixture.stagingError(.url(fixture.url("/private.jpg?sig=forged")))

        #expect(error?.code == .sourceUnresolvable)
        #expect(fixture.server.requests.last?.head.header("If-None-Match") == "\"v1\"")
        #expect(fixture.stagedFiles.isEmpty)
        #expect(fixture.stager.cache?.usage.pinnedBytes == 0)
    }

    @Test func aForgedURLRefusedOnRevalidationIsReSignedAndTheReSignedURLIsConfirmedInstead() async throws {
        let fixture = try await cachedFixture(resign: true)
        defer { fixture.stop() }
        fixture.server.serveObject("/private.jpg", SampleBytes.jpeg, etag: "\"v1\"") { $0.queryValue("sig") == "good" }
        let good = fixture.url("/private.jpg?sig=good")
        fixture.server.route("/resign") { _, _ in
            .init(status: 200, contentType: "application/json", body: Array("{\"url\": \"\(good)\"}".utf8))
        }
        await fixture.stager.release(try await fixture.stage(.url(good)))

        let staged = try await fixture.stage(.url(fixture.url("/private.jpg?sig=forged")))

        let seen = fixture.server.requests.map { "\($0.head.path)?\($0.head.queryValue("sig") ?? "")" }
        #expect(seen == ["/private.jpg?good", "/private.jpg?forged", "/resign?", "/private.jpg?good"])
        #expect(fixture.server.fetches("/private.jpg") == 1, "the re-signed URL confirmed the entry")
        #expect(try contents(staged) == SampleBytes.jpeg)
        await fixture.stager.release(staged)
    }

    @Test func validatorsThatCannotGoBackInAHeaderAreNotKept() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.serve("/odd.jpg", SampleBytes.jpeg, headers: [HTTPHeader("ETag", String(repeating: "x", count: 600))])

        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/odd.jpg"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/odd.jpg"))))

        #expect(fixture.server.requests.allSatisfy { !$0.isConditional })
        #expect(fixture.stager.cache?.usage.entries == 0)
    }
}
