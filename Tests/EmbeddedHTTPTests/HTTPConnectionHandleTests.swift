import Foundation
import Synchronization
import TestSupport
import Testing
@testable import EmbeddedHTTP

/// The handles the server gave the test's bodies, in order.
private final class HandedHandles: Sendable {
    private let list = Mutex<[HTTPConnectionHandle]>([])
    func append(_ handle: HTTPConnectionHandle) { list.withLock { $0.append(handle) } }
    var all: [HTTPConnectionHandle] { list.withLock { $0 } }
}

/// Produces `total` bytes and hands its connection's handle to the test.
private final class HandingBody: HTTPBodyProducer {
    private let handles: HandedHandles
    private let produced: ProducedBytes
    private let total: Int64

    init(handles: HandedHandles, produced: ProducedBytes, total: Int64) {
        self.handles = handles
        self.produced = produced
        self.total = total
    }

    func connected(_ connection: HTTPConnectionHandle) {
        handles.append(connection)
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard Int64(offset) < total else { return .end }
        let count = min(buffer.count, Int(total - Int64(offset)))
        buffer.initializeMemory(as: UInt8.self, repeating: 0x41)
        produced.add(Int64(count))
        return .bytes(count)
    }
}

/// A streamed body can end its connection from another thread — and only its own connection.
@Suite struct HTTPConnectionHandleTests {
    private func server(_ handles: HandedHandles, _ produced: ProducedBytes) throws -> EmbeddedHTTPServer {
        try EmbeddedHTTPServer { head in
            let total: Int64 = head.path == "/endless" ? .max : 10
            return .respond(ServerResponse(status: 200, body: .stream(length: nil, producer: HandingBody(
                handles: handles, produced: produced, total: total))))
        }
    }

    @Test func closingTheHandleEndsAConnectionWhoseClientStoppedReading() async throws {
        let handles = HandedHandles()
        let produced = ProducedBytes()
        let server = try server(handles, produced)
        defer { server.stop() }
        let client = try #require(HeldConnection(port: server.port, receiveBuffer: 4096))
        client.send("GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // The server blocks once the socket's buffers are full, since the client reads nothing.
        #expect(await eventually { produced.value > 0 && handles.all.count == 1 })
        try #require(handles.all.first).close()
        // Well within the server's idle timeout (60 s), and the body never ends by itself.
        #expect(await client.drainsToEnd(timeoutMilliseconds: 20_000), "the connection ends though the client never read")
    }

    @Test func aHandleGoesDeadWhenItsRequestEnds() async throws {
        let handles = HandedHandles()
        let produced = ProducedBytes()
        let server = try server(handles, produced)
        defer { server.stop() }
        #expect(try await Curl.run(["\(server.baseURL)/short"]).bodyText == String(repeating: "A", count: 10))
        let ended = try #require(handles.all.first)
        // A new connection may get the ended one's descriptor number: the old handle must not reach it.
        let client = try #require(HeldConnection(port: server.port))
        client.send("GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await eventually { handles.all.count == 2 })
        ended.close()
        // More than the socket buffers can have held when the old handle was closed.
        #expect(await client.receive(byteCount: 32 << 20, timeoutMilliseconds: 20_000), "the newer connection still streams")
        handles.all[1].close()
        #expect(await client.drainsToEnd(timeoutMilliseconds: 20_000))
    }
}
