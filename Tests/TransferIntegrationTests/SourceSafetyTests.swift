import DevServices
import EmbeddedHTTP
import Foundation
import S3
import TestSupport
import Testing
import UploadEngine
import WireFormat

/// Source safety and resolution through the whole engine: what a batch reports for hostile and expiring sources.
@Suite(.timeLimit(.minutes(1))) struct SourceSafetyTests {
    /// A source host on 127.0.0.1 that answers `/expired.jpg` 403, `/fresh.jpg` with `fresh`, `/hop` with a
    /// redirect to the cloud metadata address, and `/resign` (POST) with the URL of `/fresh.jpg`.
    private static func sourceHost(fresh: Data) throws -> EmbeddedHTTPServer {
        try EmbeddedHTTPServer { head in
            switch head.path {
            case "/expired.jpg": return .respond(.text(403, "expired\n"))
            case "/fresh.jpg": return .respond(.init(status: 200, contentType: "image/jpeg", body: Array(fresh)))
            case "/hop": return .respond(.init(status: 302, headers: [HTTPHeader("Location", "http://169.254.169.254/latest/meta-data/")]))
            case "/resign":
                let host = head.header("Host") ?? ""
                return .readBody(CollectedBody(limit: 4096) { _ in
                    .init(status: 200, contentType: "application/json",
                          body: Array("{\"url\": \"http://\(host)/fresh.jpg?sig=new\"}".utf8))
                })
            default: return .respond(.text(404, "no\n"))
            }
        }
    }

    @Test func aRedirectToTheMetadataAddressRejectsTheFileAsForbiddenBeforeAnythingIsPresigned() async throws {
        let host = try Self.sourceHost(fresh: Data())
        defer { host.stop() }
        let harness = try TransferHarness()
        defer { harness.stop() }

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .url(host.baseURL + "/hop"))]))

        #expect(result.rejected.map(\.error.code) == ["ERR_SOURCE_FORBIDDEN"])
        #expect(harness.rejections(of: "f1").first?.message.contains("169.254.169.254") == true)
        #expect(harness.services.presign.calls.isEmpty)
        #expect(harness.stagedFiles.isEmpty)
    }

    @Test func aSourceRefusedWith403IsUploadedFromTheReSignedURL() async throws {
        let fresh = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(TestBytes.make(200_000, seed: 3)))
        let host = try Self.sourceHost(fresh: fresh)
        defer { host.stop() }
        var options = TransferHarness.Options()
        options.resignURL = host.baseURL + "/resign"
        let harness = try TransferHarness(options)
        defer { harness.stop() }

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "photo.jpg", source: .url(host.baseURL + "/expired.jpg?sig=old"))]))

        #expect(result.successful.map(\.fileId) == ["f1"])
        let attachment = try #require(harness.attachment(of: "f1"))
        #expect(attachment.sha256 == SHA256Hasher.hex(of: fresh))
        #expect(attachment.mimeType == "image/jpeg", "the absent type is filled from the bytes")
        let stored = try #require(try harness.services.store.contents(ofKey: harness.key(fileId: "f1", name: "photo.jpg")))
        #expect(stored == fresh)
        #expect(await eventually { harness.stagedFiles.isEmpty })
    }

    @Test func aDeclaredTypeTheBytesContradictRejectsTheFileAsInvalid() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        let pdf = Data("%PDF-1.7\n".utf8) + TestBytes.make(10_000, seed: 4)
        let url = try await harness.putSource(pdf, key: "sources/photo.jpg")

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .url(url))]))

        #expect(result.rejected.map(\.error.code) == ["ERR_INVALID_FILE_OBJECT"])
        #expect(harness.services.presign.calls.isEmpty)
        #expect(harness.stagedFiles.isEmpty)
    }
}
