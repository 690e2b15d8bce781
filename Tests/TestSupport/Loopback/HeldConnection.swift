import Glibc

/// A TCP connection to 127.0.0.1 kept open by a test.
public final class HeldConnection {
    private var descriptor: Int32

    /// Connects; nil when the connection is refused.
    public init?(port: UInt16) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = LoopbackSocket.address(port: Int(port))
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(descriptor)
            return nil
        }
    }

    /// Whether the server has closed the connection: end of stream or reset within `timeoutMilliseconds`.
    public func isClosedByPeer(timeoutMilliseconds: Int32 = 10_000) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) <= 0
    }

    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit {
        close()
    }
}
