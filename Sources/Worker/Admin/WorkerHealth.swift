import Synchronization

/// The worker's liveness and readiness, as `/healthz` and `/readyz` report them
/// (`docs/operations.md#health-readiness-and-metrics`).
///
/// Live: the worker's loops are running and nothing fatal has happened. Ready: live, and it owns partitions and is
/// connected, so it takes jobs. A fatal error (`markFailed`) fails both checks for good: the process is expected to
/// exit, and until it does an orchestrator must see it as broken rather than as a healthy, idle worker.
///
/// Thread-safe: one lock over a small state; every method may be called from any thread, including C callbacks.
public final class WorkerHealth: Sendable {
    private struct State {
        var live = false
        var ready = false
        var notReadyReason = "starting"
        /// Why the worker takes no records for now whatever its assignment says (its batch store cannot be written).
        var held: String?
        var failure: String?
    }

    private let state = Mutex(State())

    /// A worker that is neither live nor ready yet: both checks fail with "starting".
    public init() {}

    /// The worker has started its loops; `/healthz` passes from now on unless `markFailed` is called.
    public func markLive() {
        state.withLock { $0.live = true }
    }

    /// Sets readiness: ready when partitions are assigned and the connection is up, else not ready for `reason`.
    ///
    /// - Parameters:
    ///   - ready: whether the worker takes jobs now.
    ///   - reason: why it does not (`no partitions assigned`, `not connected to Kafka`); ignored when `ready`.
    public func markReady(_ ready: Bool, reason: String? = nil) {
        state.withLock { state in
            state.ready = ready
            if !ready { state.notReadyReason = reason ?? "not ready" }
        }
    }

    /// Holds readiness off for `reason` (nil lets it go) whatever ``markReady(_:reason:)`` says meanwhile: for a
    /// condition the worker recovers from by itself, such as a batch store that cannot be written.
    public func markHeld(_ reason: String?) {
        state.withLock { $0.held = reason }
    }

    /// Records a fatal error: both checks fail from now on, whatever is marked later. The first reason is kept.
    public func markFailed(reason: String) {
        state.withLock { state in
            if state.failure == nil { state.failure = reason }
        }
    }

    /// Whether `/healthz` passes: live and not failed.
    public var isLive: Bool { liveness.isPassing }

    /// Whether `/readyz` passes: live, ready and not failed.
    public var isReady: Bool { readiness.isPassing }

    /// The fatal error's reason, once `markFailed` has been called.
    public var failureReason: String? { state.withLock { $0.failure } }

    /// Why the worker is not ready, or nil when it is (see `readiness` for the full verdict).
    public var notReadyReason: String? { readiness.reason }

    /// The liveness verdict and its reason, read at once.
    public var liveness: HealthCheck {
        state.withLock { state in
            if let failure = state.failure { return .failing("failed: \(failure)") }
            return state.live ? .passing : .failing("starting")
        }
    }

    /// The readiness verdict and its reason, read at once.
    public var readiness: HealthCheck {
        state.withLock { state in
            if let failure = state.failure { return .failing("failed: \(failure)") }
            guard state.live else { return .failing("starting") }
            if let held = state.held { return .failing(held) }
            return state.ready ? .passing : .failing(state.notReadyReason)
        }
    }
}
