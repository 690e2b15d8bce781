import Glibc
import Synchronization

/// Ends one connection from any thread: what a streamed body gets (``HTTPBodyProducer/connected(_:)``) so that
/// whoever feeds it can cut off a client that stopped reading, whose connection thread sits waiting for the socket
/// and would not call the body again.
///
/// It shuts the socket down rather than closing it: the connection's thread wakes, finds the socket unwritable and
/// closes the connection itself. The handle goes dead when the request ends — before the server closes the socket —
/// so it can never reach another connection that reused the descriptor's number.
public final class HTTPConnectionHandle: Sendable {
    private let socket: Mutex<Int32?>

    init(socket: Int32) {
        self.socket = Mutex(socket >= 0 ? socket : nil)
    }

    /// Shuts the connection down in both directions; nothing once the request has ended. Idempotent.
    public func close() {
        socket.withLock { socket in
            if let descriptor = socket { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
            socket = nil
        }
    }

    /// The request ended: the descriptor is the server's to close, and may be reused after.
    func end() {
        socket.withLock { $0 = nil }
    }
}
