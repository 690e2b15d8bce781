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

    /// The request ended (any way); a receiver that never finished is told to clean up.
    func end() {
        guard case .reading(let receiver) = phase else { return }
        phase = .done
        receiver.abandon()
    }
}
