import EmbeddedHTTP
import Foundation
import TestSupport

/// A presign endpoint in front of another, keeping every request and answer body byte for byte: the dev services'
/// presign service records its calls only as it decoded them, and a schema check needs what was on the wire.
///
/// Each call is forwarded with Debian's curl from the connection's own thread (which may block), never from
/// Swift's cooperative pool.
final class RecordingPresignProxy: Sendable {
    /// One call as it went by.
    struct Exchange: Sendable {
        let request: Data
        let status: Int
        let answer: Data
    }

    private let server: EmbeddedHTTPServer
    private let log = Locked<[Exchange]>([])

    init(forwardingTo target: String) throws {
        let log = self.log
        server = try EmbeddedHTTPServer(host: "127.0.0.1", port: 0) { _ in
            .readBody(CollectedBody(limit: 4 << 20) { body in
                let (status, answer) = Self.forward(Data(body), to: target)
                log.update { $0.append(Exchange(request: Data(body), status: status, answer: answer)) }
                return ServerResponse(status: status, contentType: "application/json", body: Array(answer))
            })
        }
    }

    /// The `presign.url` to configure.
    var url: String { "\(server.baseURL)/presign" }

    /// Every call so far, in completion order.
    var exchanges: [Exchange] { log.value }

    func stop() { server.stop() }

    /// POSTs `body` to `target`; a transport failure answers 502, which the worker treats like any failed call.
    private static func forward(_ body: Data, to target: String) -> (Int, Data) {
        guard let printed = try? Subprocess.runBlocking(
            "/usr/bin/curl", ["--silent", "--noproxy", "*", "--max-time", "30", "-H", "Content-Type: application/json",
                              "--data-binary", "@-", "-w", "\n%{http_code}", target], input: body).output,
              let newline = printed.lastIndex(of: UInt8(ascii: "\n")),
              let status = Int(String(decoding: printed[printed.index(after: newline)...], as: UTF8.self)), status > 0
        else { return (502, Data()) }
        return (status, Data(printed[..<newline]))
    }
}
