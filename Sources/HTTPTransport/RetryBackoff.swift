/// Exponential backoff with full jitter: after attempt `n` wait a uniformly random time in
/// `0 … min(maxDelay, baseDelay · 2^(n-1))` (`retry.baseDelay`, `retry.maxDelay`, `retry.maxAttempts`).
public struct RetryBackoff: Sendable, Hashable {
    /// The ceiling after the first attempt.
    public var baseDelay: Duration
    /// The largest ceiling.
    public var maxDelay: Duration
    /// Attempts in all, the first included; 1 means never retry.
    public var maxAttempts: Int

    /// A policy; the defaults are `retry.*`'s.
    public init(baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30), maxAttempts: Int = 3) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxAttempts = max(1, maxAttempts)
    }

    /// The upper bound of the wait after attempt `attempt` (1-based).
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        var ceiling = baseDelay
        for _ in 1..<max(1, attempt) {
            ceiling *= 2
            if ceiling >= maxDelay { return maxDelay }
        }
        return min(ceiling, maxDelay)
    }

    /// Full jitter: a uniformly random duration in `0 … ceiling`.
    public static let fullJitter: @Sendable (Duration) -> Duration = { ceiling in
        let nanoseconds = ceiling / .nanoseconds(1)
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64(Double.random(in: 0...1) * nanoseconds))
    }
}
