import Glibc

/// A TCP socket bound to an address and listening, ready to be handed to libmicrohttpd.
///
/// Binding here rather than inside libmicrohttpd is what lets a start failure say why (`EADDRINUSE` and friends):
/// libmicrohttpd only reports that it failed.
struct ListeningSocket {
    /// The descriptor; owned by this value until it is handed to a daemon or closed.
    let descriptor: Int32
    /// The port the socket is bound to (the kernel's choice when 0 was asked for).
    let port: UInt16

    /// Creates a non-blocking, close-on-exec stream socket on `address`:`port` (0 = ephemeral) and listens on it.
    init(address: BindAddress, port: UInt16) throws(EmbeddedHTTPError) {
        let domain: Int32
        switch address.family {
        case .ipv4: domain = AF_INET
        case .ipv6: domain = AF_INET6
        }
        let descriptor = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                                    | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else {
            throw Self.failure(errno, "cannot create a socket for", address, port)
        }
        // A restarted process must be able to bind its port while old connections sit in TIME_WAIT; on Linux this
        // never lets two sockets listen on the same address and port.
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))

        let bound = Self.bind(descriptor, address, port)
        guard bound == 0, listen(descriptor, SOMAXCONN) == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw Self.failure(code, "cannot listen on", address, port)
        }
        guard let boundPort = Self.localPort(descriptor) else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw Self.failure(code, "cannot read the bound port of", address, port)
        }
        self.descriptor = descriptor
        self.port = boundPort
    }

    /// Closes the socket; only for a socket no daemon has taken over.
    func close() {
        _ = Glibc.close(descriptor)
    }

    private static func bind(_ descriptor: Int32, _ address: BindAddress, _ port: UInt16) -> Int32 {
        switch address.family {
        case .ipv4(let raw):
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            socketAddress.sin_addr.s_addr = raw
            return withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6(let bytes):
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    private static func localPort(_ descriptor: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET: return UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: return UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: return nil
            }
        }
    }

    private static func failure(_ code: Int32, _ doing: String, _ address: BindAddress, _ port: UInt16) -> EmbeddedHTTPError {
        let endpoint = "\(address.hostText):\(port)"
        let reason = String(cString: strerror(code))
        switch code {
        case EADDRINUSE:
            return EmbeddedHTTPError(.addressInUse, "\(endpoint) is already in use (\(reason))", systemErrorNumber: code)
        case EADDRNOTAVAIL:
            return EmbeddedHTTPError(.bindFailed, "\(endpoint) is not an address of this machine (\(reason))",
                                     systemErrorNumber: code)
        default:
            return EmbeddedHTTPError(.bindFailed, "\(doing) \(endpoint): \(reason)", systemErrorNumber: code)
        }
    }
}
