import Foundation
import Synchronization

/// A one-way switch a worker watches: flipped by SIGTERM/SIGINT (or a test), awaited by the run loop and by each of
/// the worker's services (graceful shutdown, distinct from task cancellation).
public final class ShutdownSignal: Sendable {
    private struct State {
        var requested = false
        var requestedAt: Date?
        var waiters: [Int: @Sendable () -> Void] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var isRequested: Bool { state.withLock { $0.requested } }

    /// When the stop was first asked for; nil before. The shutdown's time (``ShutdownBudget``) counts from here,
    /// whatever asked: a signal or a fatal error.
    public var requestedAt: Date? { state.withLock { $0.requestedAt } }

    /// Asks for a graceful stop; later calls do nothing.
    public func request() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.requested else { return [] }
            state.requested = true
            state.requestedAt = Date()
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

    /// Runs `action` when a stop is asked for (at once when it was already), on the thread that asked: for what
    /// must not depend on a task getting to run, such as the command's last-resort watchdog.
    public func whenRequested(_ action: @escaping @Sendable () -> Void) {
        if enqueue(action) == nil { action() }
    }

    /// Returns once a stop was asked for, or after `duration`; says whether a stop was asked for. For work done
    /// every so often until the worker stops, which should not wait out its interval at shutdown.
    func wait(upTo duration: Duration) async -> Bool {
        await FirstOfEventOrTimeout.wait(upTo: duration) { fire in
            guard let waiter = enqueue(fire) else {
                fire()
                return {}
            }
            return { _ = self.state.withLock { $0.waiters.removeValue(forKey: waiter) } }
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
