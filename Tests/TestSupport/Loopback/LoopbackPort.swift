#if canImport(Glibc)
import Glibc
#endif

/// Loopback port helpers for test servers.
public enum LoopbackPort {
    /// A port that was free a moment ago (bound to 0, read back, released).
    public static func free() throws -> Int {
        let socket = try LoopbackSocket.bound()
        defer { close(socket.descriptor) }
        return socket.port
    }

    /// Whether something accepts TCP connections on the port right now.
    ///
    /// Ephemeral ports are reused: once a server stops, a server of a parallel test may bind the same port. So tests
    /// prove a stopped server is gone by what it no longer does (its record does not grow, its held connections are
    /// closed), not by a refused connect alone.
    public static func accepts(_ port: Int) -> Bool {
        guard let connection = HeldConnection(port: UInt16(port)) else { return false }
        connection.close()
        return true
    }
}

/// A TCP socket bound to 127.0.0.1 and an ephemeral port.
public struct LoopbackSocket {
    /// The socket; the caller closes it.
    public var descriptor: Int32
    /// The port it is bound to.
    public var port: Int

    /// A socket call that failed, with its errno.
    public struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        /// A failure of `call` with errno `code`.
        public init(call: String, code: Int32) {
            self.call = call
            self.code = code
        }

        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// A socket bound to 127.0.0.1 and a port the kernel picks: the port stays reserved until it is closed.
    public static func bound() throws -> LoopbackSocket {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw Failure(call: "bind", code: errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return LoopbackSocket(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The IPv4 loopback address with `port`.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }
}
