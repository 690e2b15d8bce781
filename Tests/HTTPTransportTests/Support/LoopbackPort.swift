#if canImport(Glibc)
import Glibc
#endif

/// Loopback port helpers for test servers.
enum LoopbackPort {
    /// A port that was free a moment ago (bound to 0, read back, released).
    static func free() throws -> Int {
        let socket = try LoopbackSocket.bound()
        defer { close(socket.descriptor) }
        return socket.port
    }

    /// Whether something accepts TCP connections on the port.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = LoopbackSocket.address(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A TCP socket bound to 127.0.0.1 and an ephemeral port.
struct LoopbackSocket {
    var descriptor: Int32
    var port: Int

    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    static func bound() throws -> LoopbackSocket {
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

    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }
}
