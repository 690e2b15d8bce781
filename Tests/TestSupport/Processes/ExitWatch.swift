import Foundation
import Glibc
import Synchronization

/// Reaps one child on a thread of its own and tells whoever waits.
final class ExitWatch: Sendable {
    private struct State {
        var status: Int32?
        var handlers: [@Sendable (Int32) -> Void] = []
    }

    private let state = Mutex(State())

    init(pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            // Exited: the code from bits 8–15; killed: the signal in bits 0–6 (Foundation's terminationStatus).
            let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            let handlers = state.withLock { state in
                state.status = status
                defer { state.handlers = [] }
                return state.handlers
            }
            for handler in handlers { handler(status) }
        }
    }

    var status: Int32? { state.withLock { $0.status } }

    func whenExited(_ handler: @escaping @Sendable (Int32) -> Void) {
        let status: Int32? = state.withLock { state in
            if state.status == nil { state.handlers.append(handler) }
            return state.status
        }
        if let status { handler(status) }
    }
}
