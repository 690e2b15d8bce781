import Synchronization

/// A one-way switch a worker watches: flipped by SIGTERM/SIGINT (or a test), awaited by the run loop.
public final class ShutdownSignal: Sendable {
    private let state = Mutex<(requested: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public var isRequested: Bool { state.withLock { $0.requested } }

    /// Asks for a graceful stop; later calls do nothing.
    public func request() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.requested else { return [] }
            state.requested = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once a stop was asked for.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let requested = state.withLock { state in
                if state.requested { return true }
                state.waiters.append(continuation)
                return false
            }
            if requested { continuation.resume() }
        }
    }
}
