import Foundation
import Synchronization
import TestSupport
import Testing
@testable import EmbeddedHTTP

/// Counts the body's chunks and bytes, and answers with them.
private final class ChunkCounter: HTTPBodyReceiver {
    private var chunks = 0
    private var bytes = 0
    private var largest = 0
    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition {
        chunks += 1
        bytes += chunk.count
        largest = max(largest, chunk.count)
        return .proceed
    }
    func finish() -> HTTPRequestCompletion { .respond(.text(200, "\(chunks) \(bytes) \(largest)")) }
    func abandon() {}
}

/// Produces `total` bytes of `fill`, a few at a time.
private final class CountingProducer: HTTPBodyProducer {
    let total: UInt64
    init(total: UInt64) { self.total = total }
    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < total else { return .end }
        let count = min(buffer.count, Int(total - offset), 1000)
        for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: Int(offset) + index) }
        return .bytes(count)
    }
}

@Suite struct EmbeddedHTTPServerTests {
    @Test func linksLibmicrohttpd() {
        #expect(MicroHTTPDLibrary.version.hasPrefix("0.9."))
    }

    @Test func requestBodyArrivesInChunksNotAsOneBuffer() async throws {
        let server = try EmbeddedHTTPServer { _ in .readBody(ChunkCounter()) }
        defer { server.stop() }
        let file = try TemporaryFile(count: 1 << 20)
        defer { file.remove() }

        let result = try await Curl.run(["-T", file.url.path, "\(server.baseURL)/upload"])

        #expect(result.exitCode == 0)
        let numbers = result.bodyText.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 3)
        #expect(numbers[1] == 1 << 20)
        #expect(numbers[0] > 1)
        #expect(numbers[2] < 1 << 20)
    }

    @Test func handlerSeesMethodDecodedPathQueryAndHeaders() async throws {
        let seen = Mutex<HTTPRequestHead?>(nil)
        let server = try EmbeddedHTTPServer { head in
            seen.withLock { $0 = head }
            return .respond(.text(201, "ok"))
        }
        defer { server.stop() }

        let result = try await Curl.run([
            "-X", "DELETE", "-H", "X-Probe: yes", "\(server.baseURL)/a%20b/c%2Fd?x=1&y=two%20words&flag",
        ])

        #expect(result.status == 201)
        let head = try #require(seen.withLock { $0 })
        #expect(head.method == "DELETE")
        #expect(head.path == "/a b/c/d")
        #expect(head.queryValue("x") == "1")
        #expect(head.queryValue("y") == "two words")
        #expect(head.query.contains(HTTPQueryItem("flag", nil)))
        #expect(head.header("x-probe") == "yes")
    }

    @Test func fileBodyIsServedFromDiskWithItsLength() async throws {
        let file = try TemporaryFile(count: 300_000)
        defer { file.remove() }
        let path = file.url.path
        let server = try EmbeddedHTTPServer { _ in .respond(ServerResponse(status: 200, body: .file(path: path))) }
        defer { server.stop() }

        let result = try await Curl.run(["\(server.baseURL)/f"])

        #expect(result.status == 200)
        #expect(result.headers["content-length"] == "300000")
        #expect(Array(result.body) == file.bytes)
    }

    @Test func missingFileBodyAnswers500() async throws {
        let server = try EmbeddedHTTPServer { _ in
            .respond(ServerResponse(status: 200, body: .file(path: "/nonexistent/devsvc/file")))
        }
        defer { server.stop() }

        let result = try await Curl.run(["\(server.baseURL)/f"])

        #expect(result.status == 500)
    }

    @Test func streamedBodyOfUnknownLengthIsSentChunked() async throws {
        let server = try EmbeddedHTTPServer { _ in
            .respond(ServerResponse(status: 200, body: .stream(length: nil, producer: CountingProducer(total: 5000))))
        }
        defer { server.stop() }

        let result = try await Curl.run(["\(server.baseURL)/s"])

        #expect(result.status == 200)
        #expect(result.headers["transfer-encoding"] == "chunked")
        #expect(Array(result.body) == (0..<5000).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func droppedConnectionGivesTheClientAnEmptyReply() async throws {
        let server = try EmbeddedHTTPServer { _ in .dropConnection }
        defer { server.stop() }

        let result = try await Curl.run(["\(server.baseURL)/x"])

        #expect(result.exitCode == 52)
    }

    @Test func collectedBodyOverItsLimitIsAnswered413() async throws {
        let server = try EmbeddedHTTPServer { _ in
            .readBody(CollectedBody(limit: 10) { bytes in .text(200, "\(bytes.count)") })
        }
        defer { server.stop() }

        let small = try await Curl.run(["--data-binary", "0123456789", "\(server.baseURL)/j"])
        let large = try await Curl.run(["--data-binary", "0123456789A", "\(server.baseURL)/j"])

        #expect(small.status == 200)
        #expect(small.bodyText == "10")
        #expect(large.status == 413)
    }

    @Test func stopClosesConnectionsAndNoLongerServesThePort() async throws {
        let served = Atomic<Int>(0)
        let server = try EmbeddedHTTPServer { _ in
            served.add(1, ordering: .relaxed)
            return .respond(.text(200, "ok"))
        }
        let url = "\(server.baseURL)/x"
        #expect(try await Curl.run([url]).status == 200)
        let idle = try #require(HeldConnection(port: server.port))

        server.stop()
        server.stop()
        let afterStop = try await Curl.run([url])

        #expect(idle.isClosedByPeer())
        // Refused, or answered by another test's server that was given the freed port: never by this one.
        #expect(afterStop.exitCode == 7 || served.load(ordering: .relaxed) == 1)
        #expect(served.load(ordering: .relaxed) == 1)
    }
}
