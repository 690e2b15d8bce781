import Synchronization

/// Tracks the records being applied right now, so a revoke can wait for them: a record that passed its ownership
/// check before the revoke began is applied whole, and its batch is handed over only after it.
///
/// Applying goes `enter` → ownership check → apply → `leave`; the revoke marks its partitions revoking (so later
/// ownership checks fail), then awaits `quiesce()`, which waits only for applications that entered before it:
/// lanes that keep applying other partitions' records cannot hold a revoke up.
final class ApplyGate: Sendable {
    /// One application under way.
    struct Ticket: Sendable {
        fileprivate let number: UInt64
    }

    private struct State {
        var issued: UInt64 = 0
        /// Applications under way, by ticket number (a handful: one per lane).
        var running: Set<UInt64> = []
        /// Revokes waiting for every ticket up to their number to leave.
        var waiters: [(through: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

        func isClear(through number: UInt64) -> Bool { !running.contains { $0 <= number } }
    }

    private let state = Mutex(State())

    func enter() -> Ticket {
        state.withLock { state in
            state.issued += 1
            state.running.insert(state.issued)
            return Ticket(number: state.issued)
        }
    }

    func leave(_ ticket: Ticket) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running.remove(ticket.number)
            guard !state.waiters.isEmpty else { return [] }
            let oldest = state.running.min() ?? .max
            // Clear through `through` means no running ticket at or below it.
            let ready = state.waiters.filter { $0.through < oldest }.map(\.continuation)
            state.waiters.removeAll { $0.through < oldest }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once every application that entered before this call has left.
    func quiesce() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let clear = state.withLock { state -> Bool in
                if state.isClear(through: state.issued) { return true }
                state.waiters.append((state.issued, continuation))
                return false
            }
            if clear { continuation.resume() }
        }
    }
}
