import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP listener on 127.0.0.1 that misbehaves on purpose.
///
/// `.neverAccept` completes handshakes in the kernel backlog but never reads, so an upload stalls once the socket
/// buffers fill. `.resetConnections` accepts each connection and closes it at once with an RST.
public final class LoopbackListener: Sendable {
    /// How the listener misbehaves.
    public enum Behaviour: Sendable {
        case neverAccept
        case resetConnections
    }

    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32
    private let behaviour: Behaviour
    private let stopped = Atomic<Bool>(false)

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    public init(_ behaviour: Behaviour) throws {
        let socket = try LoopbackSocket.bound()
        guard listen(socket.descriptor, 64) == 0 else {
            close(socket.descriptor)
            throw LoopbackSocket.Failure(call: "listen", code: errno)
        }
        descriptor = socket.descriptor
        port = socket.port
        self.behaviour = behaviour
        if behaviour == .resetConnections {
            // The accept loop runs on its own thread and owns the descriptor's close.
            let descriptor = descriptor
            Thread {
                while true {
                    let connection = accept(descriptor, nil, nil)
                    if connection < 0 {
                        if errno == EINTR { continue }
                        break
                    }
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                    setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                    close(connection)
                }
                close(descriptor)
            }.start()
        }
    }

    /// Stops listening; pending connections are reset.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        switch behaviour {
        case .neverAccept: close(descriptor)
        case .resetConnections: shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    deinit { stop() }
}
