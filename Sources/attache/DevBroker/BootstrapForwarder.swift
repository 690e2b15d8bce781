import Foundation

/// A TCP forwarder on 127.0.0.1:`port` to one mock broker, so `attache dev-broker --port P` offers a fixed
/// bootstrap address although librdkafka's mock brokers pick their own ports.
///
/// Kafka clients only bootstrap through it: the metadata they receive names the brokers' real addresses, which they
/// then reach directly on loopback. Each connection is pumped by a thread per direction; the listener has its own.
final class BootstrapForwarder: @unchecked Sendable {
    // Immutable after init; the listening descriptor is closed only by `stop()`.
    let port: UInt16
    private let listener: Int32
    private let target: (host: String, port: UInt16)

    init(port: UInt16, forwardingTo target: String) throws {
        guard let colon = target.lastIndex(of: ":"), let targetPort = UInt16(target[target.index(after: colon)...]) else {
            throw ForwarderError("cannot read the broker address \(target)")
        }
        self.target = (String(target[..<colon]), targetPort)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ForwarderError("socket: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw ForwarderError("cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        self.listener = listener
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target.port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard upstream >= 0, connected == 0 else {
                close(client)
                if upstream >= 0 { close(upstream) }
                continue
            }
            Thread.detachNewThread { Self.pump(from: client, to: upstream) }
            Thread.detachNewThread { Self.pump(from: upstream, to: client) }
        }
    }

    /// Copies bytes one way until either side closes, then closes both directions' write halves.
    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        outer: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + offset, count - offset) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { break outer }
                offset += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

struct ForwarderError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
