import EmbeddedHTTP
import Foundation
import TestSupport
import Testing
import UploadEngine
import WireFormat

/// Every hostile or malformed input of `docs/sources.md` gets exactly its documented error, and leaves nothing
/// in staging. The stager allows 127.0.0.1 (the test server) and nothing else, and re-signs through the server.
@Suite(.timeLimit(.minutes(2))) struct HostileSourceTests {
    @Test(arguments: HostileSource.all)
    func aHostileSourceGetsItsDocumentedError(_ hostile: HostileSource) async throws {
        var options = StagingFixture.Options()
        options.resign = true
        options.stripLocation = true
        options.cacheMax = hostile.primer == nil ? nil : 0
        options.stallTimeout = .seconds(2)
        options.fetchTimeout = .seconds(4)
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        try prepare(fixture)
        func resolved(_ url: String) -> String {
            url.replacingOccurrences(of: "{server}", with: fixture.server.baseURL)
                .replacingOccurrences(of: "{port}", with: "\(fixture.server.port)")
        }
        if let primer = hostile.primer {
            await fixture.stager.release(try await fixture.stage(.url(resolved(primer))))
        }

        let source: FileSource = switch hostile.input {
        case .url(let url):
            .url(resolved(url))
        case .path(let path): .path(path)
        case .data(let bytes, _): .data(Data(bytes))
        case .malformed(let reason): .malformed(reason)
        }
        let error = await fixture.stagingError(source, mimeType: hostile.declared)

        #expect(error?.code == hostile.expected, "\(error?.description ?? "staged")")
        // A primed cache entry stays; nothing a batch would hold does.
        #expect(hostile.primer == nil ? fixture.stagingFiles.isEmpty : fixture.stagedFiles.isEmpty)
    }

    @Test func theDocumentedTableListsEveryCase() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/sources.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") }.map { String($0) }

        #expect(HostileSource.all.count >= 30)
        for hostile in HostileSource.all {
            #expect(rows.contains(hostile.markdownRow), "missing from docs/sources.md: \(hostile.markdownRow)")
        }
    }

    /// The server's routes and the source root's files the cases refer to.
    private func prepare(_ fixture: StagingFixture) throws {
        let server = fixture.server
        let port = server.port
        server.serve("/photo.jpg", SampleBytes.jpeg)
        server.redirect("/redirect/metadata", to: "http://169.254.169.254/latest/meta-data/")
        server.redirect("/redirect/private", to: "http://10.0.0.1/", status: 301)
        server.redirect("/redirect/ipv6-loopback", to: "http://[::1]:\(port)/photo.jpg")
        server.redirect("/redirect/decimal", to: "http://2130706434:\(port)/photo.jpg", status: 307)
        server.redirect("/redirect/file", to: "file:///etc/passwd")
        server.redirect("/redirect/gopher", to: "gopher://127.0.0.1:\(port)/_x")
        server.redirect("/redirect/loop", to: "/redirect/loop")
        for status in [410, 403, 503, 300] { server.serve("/status/\(status)", [], status: status) }
        for target in ["file", "metadata"] { server.serve("/resign-to/\(target)", [], status: 403) }
        server.route("/resign") { _, body in
            let asked = (try? JSONParser.parse(body))?["url"]?.stringValue ?? ""
            let fresh = asked.hasSuffix("/resign-to/file") ? "file:///etc/passwd"
                : asked.hasSuffix("/resign-to/metadata") ? "http://169.254.169.254/latest/meta-data/" : asked
            return .init(status: 200, contentType: "application/json", body: Array("{\"url\": \"\(fresh)\"}".utf8))
        }
        server.route("/trickle") { _, _ in
            .init(status: 200, body: .stream(length: 600, producer: PacedProducer(total: 600, chunk: 1, every: .milliseconds(100))))
        }
        server.route("/endless-slow") { _, _ in
            .init(status: 200, body: .stream(length: nil, producer: PacedProducer(total: 1 << 30, chunk: 4096, every: .milliseconds(100))))
        }
        server.serveObject("/cached/private.jpg", SampleBytes.jpeg, etag: "\"private\"") { $0.queryValue("sig") == "good" }
        server.route("/cached/download") { head, _ in
            let id = head.queryValue("id") ?? ""
            let etag = "\"doc-\(id)\""
            if head.header("If-None-Match") == etag { return .init(status: 304, headers: [HTTPHeader("ETag", etag)]) }
            return .init(status: 200, headers: [HTTPHeader("ETag", etag)], body: .bytes(id == "1" ? SampleBytes.pdf : SampleBytes.png))
        }
        server.serve("/content/pdf", SampleBytes.pdf)
        server.serve("/content/zip", SampleBytes.zip)
        server.serve("/content/png", SampleBytes.png)
        server.serve("/content/jpeg", SampleBytes.jpeg)
        server.serve("/content/large", [UInt8](repeating: 0x61, count: 2 * 1024 * 1024))
        server.route("/content/endless") { _, _ in
            .init(status: 200, body: .stream(length: nil, producer: EndlessProducer(total: 1 << 40, counter: ProducedBytes())))
        }

        let root = fixture.sourceRoot
        let outside = fixture.directory.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data(SampleBytes.pdf).write(to: fixture.directory.appendingPathComponent("outside.pdf"))
        try Data(SampleBytes.pdf).write(to: outside.appendingPathComponent("secret.pdf"))
        try fixture.writeSource("docs/archive.zip", SampleBytes.zip)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("link-out.pdf").path, withDestinationPath: outside.appendingPathComponent("secret.pdf").path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("dir-out").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: "loop")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("folder"), withIntermediateDirectories: true)
        #expect(mkfifo(root.appendingPathComponent("pipe").path, 0o600) == 0)
    }
}
