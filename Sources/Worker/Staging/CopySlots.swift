import Foundation
import Synchronization

/// Bulk staging copies that may run at once, handed out first come, first served.
///
/// A copy is CPU work (SHA-256 over every byte) as much as I/O. Running one per core finishes the first files
/// early, so their presign and upload overlap the copies still under way, instead of every file of a job
/// finishing its copy at the same late moment.
final class CopySlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Slots for `width` copies at once (at least one).
    init(width: Int) {
        state = Mutex(State(free: max(1, width)))
    }

    /// Runs `work` in a slot, waiting for one if need be; a task cancelled while it waited does not start.
    func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        try Task.checkCancellation()
        return try await work()
    }

    /// Copies waiting for a slot now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func acquire() async {
        // A free slot is taken without suspending: most copies never wait.
        let taken = state.withLock { state -> Bool in
            guard state.free > 0, state.waiting.isEmpty else { return false }
            state.free -= 1
            return true
        }
        if taken { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
