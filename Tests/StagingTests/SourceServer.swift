import EmbeddedHTTP
import Foundation
import Synchronization
import WireFormat

/// A loopback HTTP server for staging tests: answers each path from a route table the test fills, and logs every
/// request (with its body, for POSTs) in arrival order.
final class SourceServer: Sendable {
    /// What a route answers, built on the connection's thread.
    typealias Route = @Sendable (_ head: HTTPRequestHead, _ body: [UInt8]) -> EmbeddedHTTP.ServerResponse

    /// One request as the server saw it.
    struct Request: Sendable {
        var head: HTTPRequestHead
        var body: [UInt8]

        /// Whether it is a conditional GET (`If-None-Match` or `If-Modified-Since`).
        var isConditional: Bool { head.header("If-None-Match") != nil || head.header("If-Modified-Since") != nil }
    }

    private let table = RouteTable()
    private let server: EmbeddedHTTPServer

    /// Starts listening on 127.0.0.1, on an ephemeral port.
    init() throws {
        let table = table
        server = try EmbeddedHTTPServer(host: "127.0.0.1") { head in
            let route = table.routes.withLock { $0[head.path] }
            func answer(_ body: [UInt8]) -> EmbeddedHTTP.ServerResponse {
                table.log.withLock { $0.append(Request(head: head, body: body)) }
                return route?(head, body) ?? .text(404, "no route\n")
            }
            return .readBody(CollectedBody(limit: 64 * 1024) { answer($0) })
        }
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { server.baseURL }
    /// The port.
    var port: UInt16 { server.port }

    /// Answers `path` with `route` from now on.
    func route(_ path: String, _ route: @escaping Route) {
        table.routes.withLock { $0[path] = route }
    }

    /// Answers `path` with `bytes`; `length: false` sends them chunked, without `Content-Length`.
    func serve(_ path: String, _ bytes: [UInt8], status: Int = 200, headers: [HTTPHeader] = [], length: Bool = true) {
        route(path) { _, _ in
            let body: HTTPResponseBody = length ? .bytes(bytes) : .stream(length: nil, producer: ByteProducer(bytes))
            return EmbeddedHTTP.ServerResponse(status: status, headers: headers, body: body)
        }
    }

    /// Answers `path` like an object store: `bytes` with their `ETag` and `Last-Modified` (either may be nil), and
    /// 304 to a GET whose `If-None-Match` (else `If-Modified-Since`) names them. A request `authorised` refuses
    /// gets 403, conditional or not.
    func serveObject(
        _ path: String, _ bytes: [UInt8], etag: String? = nil, lastModified: String? = nil,
        authorised: @escaping @Sendable (HTTPRequestHead) -> Bool = { _ in true }
    ) {
        route(path) { head, _ in
            guard authorised(head) else { return .text(403, "forbidden\n") }
            let validators = [etag.map { HTTPHeader("ETag", $0) }, lastModified.map { HTTPHeader("Last-Modified", $0) }]
                .compactMap { $0 }
            let current: Bool = if let asked = head.header("If-None-Match") {
                asked == etag
            } else if let asked = head.header("If-Modified-Since") {
                asked == lastModified
            } else {
                false
            }
            if current { return EmbeddedHTTP.ServerResponse(status: 304, headers: validators) }
            return EmbeddedHTTP.ServerResponse(status: 200, headers: validators, body: .bytes(bytes))
        }
    }

    /// Answers `path` with a redirect to `location`.
    func redirect(_ path: String, to location: String, status: Int = 302) {
        route(path) { _, _ in EmbeddedHTTP.ServerResponse(status: status, headers: [HTTPHeader("Location", location)]) }
    }

    /// Every request so far.
    var requests: [Request] { table.log.withLock { $0 } }

    /// How many requests asked for `path`.
    func hits(_ path: String) -> Int { requests.filter { $0.head.path == path }.count }

    /// How many requests asked for `path` without a validator: the ones that fetch the bytes.
    func fetches(_ path: String) -> Int {
        requests.filter { $0.head.path == path && !$0.isConditional }.count
    }

    /// Stops listening and closes every connection.
    func stop() { server.stop() }
}

/// The routes and the request log, shared with the server's connection threads.
private final class RouteTable: Sendable {
    let routes = Mutex<[String: SourceServer.Route]>([:])
    let log = Mutex<[SourceServer.Request]>([])
}

/// A body of known bytes sent chunked (no `Content-Length`); one connection's thread uses it.
final class ByteProducer: HTTPBodyProducer {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        let start = Int(offset)
        guard start < bytes.count else { return .end }
        let count = min(buffer.count, bytes.count - start, 16 * 1024)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
        return .bytes(count)
    }
}
