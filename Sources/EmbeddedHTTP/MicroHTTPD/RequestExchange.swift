import CMicroHTTPD

/// One request's state between MHD's calls to the access handler, owned through `*con_cls`.
///
/// Created on the first call (head complete), retained by MHD's `con_cls` slot and released by the completion
/// callback. Every call for a request comes from its connection's thread, so it needs no lock.
final class RequestExchange {
    private enum Phase {
        case reading(any HTTPBodyReceiver)
        case done
    }

    private var phase: Phase
    /// The handle given to a streamed answer's body; ended with the request.
    private var connection: HTTPConnectionHandle?

    /// An exchange whose body goes to `receiver`.
    init(receiver: any HTTPBodyReceiver) {
        phase = .reading(receiver)
    }

    /// An exchange already answered (or dropped) on its first call.
    init() {
        phase = .done
    }

    /// Passes one body chunk on; false means close the connection.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard case .reading(let receiver) = phase else { return true }
        switch receiver.receive(chunk) {
        case .proceed:
            return true
        case .dropConnection:
            phase = .done
            receiver.abandon()
            return false
        }
    }

    /// The body is complete: the receiver's answer, or nil to close the connection.
    func finish() -> ServerResponse? {
        guard case .reading(let receiver) = phase else { return nil }
        phase = .done
        switch receiver.finish() {
        case .respond(let response): return response
        case .dropConnection: return nil
        }
    }

    /// The handle that ends this request's connection from any thread (one per request).
    func connectionHandle(of connection: OpaquePointer) -> HTTPConnectionHandle {
        if let existing = self.connection { return existing }
        let handle = HTTPConnectionHandle(socket: attache_mhd_connection_socket(connection))
        self.connection = handle
        return handle
    }

    /// The request ended (any way): the connection handle goes dead before MHD closes the socket, and a receiver
    /// that never finished is told to clean up.
    func end() {
        connection?.end()
        guard case .reading(let receiver) = phase else { return }
        phase = .done
        receiver.abandon()
    }
}
