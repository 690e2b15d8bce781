import Synchronization

/// A one-way switch a worker watches: flipped by SIGTERM/SIGINT (or a test), awaited by the run loop and by each of
/// the worker's services (graceful shutdown, distinct from task cancellation).
public final class ShutdownSignal: Sendable {
    private struct State {
        var requested = false
        var waiters: [Int: @Sendable () -> Void] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var isRequested: Bool { state.withLock { $0.requested } }

    /// Asks for a graceful stop; later calls do nothing.
    public func request() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.requested else { return [] }
            state.requested = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0() }
    }

    /// Returns once a stop was asked for.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if enqueue({ continuation.resume() }) == nil { continuation.resume() }
        }
    }

    /// Returns once a stop was asked for, or after `duration`; says whether a stop was asked for. For work done
    /// every so often until the worker stops, which should not wait out its interval at shutdown.
    func wait(upTo duration: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            let finish = { @Sendable (requested: Bool) -> Void in answer.withLock { $0.take() }?.resume(returning: requested) }
            guard let waiter = enqueue({ finish(true) }) else { return finish(true) }
            Task {
                try? await Task.sleep(for: duration)
                // Gone from the waiters, so a signal that never comes leaves nothing behind.
                _ = state.withLock { $0.waiters.removeValue(forKey: waiter) }
                finish(false)
            }
        }
    }

    /// Registers `wake` for the stop; nil (and `wake` not kept) when it was asked for already.
    private func enqueue(_ wake: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state in
            guard !state.requested else { return nil }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = wake
            return state.nextWaiter
        }
    }
}
