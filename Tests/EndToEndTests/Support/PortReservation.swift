import Foundation

/// Holds a loopback TCP port with a listening socket of its own while a mock broker is down. librdkafka's mock
/// brokers listen on ports from the ephemeral range and bind the same port again when brought up: meanwhile any
/// outgoing connection on the machine may be given it as its local port, and the broker's bind then fails with an
/// assertion that aborts the whole process.
final class PortReservation: @unchecked Sendable {
    private var descriptor: Int32

    /// Binds and listens on 127.0.0.1:`port`; holds nothing (and says so with `isHeld`) when that fails.
    init(port: UInt16) {
        // Close-on-exec: a child spawned meanwhile (a browser, a worker) would otherwise inherit the listening socket
        // and keep it listening after `release()`, and the broker's own listen would fail on it.
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound != 0 || listen(descriptor, 1) != 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    var isHeld: Bool { descriptor >= 0 }

    /// Lets the port go, for the broker to take it back at once.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

extension FaultyCluster {
    /// Takes broker `broker` down for `duration`, holding its port meanwhile (see ``PortReservation``), then up.
    func takeBrokerDown(_ broker: Int32, for duration: Duration) async throws {
        let ports = bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last.flatMap { UInt16($0) } }
        try await setBrokerDown(broker)
        // The brokers are listed in id order; a wrong guess binds nothing (the port is in use) and holds nothing.
        let reservation = ports.indices.contains(Int(broker) - 1) ? PortReservation(port: ports[Int(broker) - 1]) : nil
        try await Task.sleep(for: duration)
        reservation?.release()
        try await setBrokerUp(broker)
    }
}
