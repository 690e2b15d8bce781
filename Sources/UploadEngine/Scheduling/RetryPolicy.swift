/// Automatic retries of failed files: exponential backoff with full jitter, honouring `Retry-After`.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, counting the first (`retry.maxAttempts`); 1 turns automatic retries off.
    public var maxAttempts: Int = 3
    public var baseDelay: Duration = .seconds(1)
    public var maxDelay: Duration = .seconds(30)

    public init(maxAttempts: Int = 3, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The ceiling of the jitter window after `failedAttempt` (1-based): `min(maxDelay, baseDelay × 2^(attempt-1))`.
    ///
    /// Doubles only while below `maxDelay`, so no configured value can overflow `Duration` (whose `*` traps).
    public func backoffCeiling(afterAttempt failedAttempt: Int) -> Duration {
        var grown = max(baseDelay, .zero)
        for _ in 0..<min(max(failedAttempt - 1, 0), 62) {
            guard grown < maxDelay, grown <= maxDelay / 2 else { return maxDelay }
            grown = grown * 2
        }
        return min(grown, maxDelay)
    }

    /// The wait before the attempt after `failedAttempt`, or nil when no automatic retry is due.
    ///
    /// Full jitter: a uniform draw from `0...ceiling`. A server's `Retry-After` is a floor, never shortened; one longer
    /// than `maxDelay` ends automatic retries, because waiting that long would hold the batch open past what the
    /// operator configured (a manual `retry` still works).
    public func delay(afterAttempt failedAttempt: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration? {
        guard failedAttempt < maxAttempts else { return nil }
        if let retryAfter, retryAfter > maxDelay { return nil }
        let ceiling = backoffCeiling(afterAttempt: failedAttempt)
        let nanos = ceiling.totalNanoseconds
        let jittered = Duration.nanoseconds(nanos > 0 ? Int64.random(in: 0...nanos, using: &random) : 0)
        if let retryAfter { return max(jittered, retryAfter) }
        return jittered
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at `Int64.max` (about 292 years) rather than overflowing.
    var totalNanoseconds: Int64 {
        let parts = components
        guard parts.seconds >= 0 else { return 0 }
        let (whole, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(parts.attoseconds / 1_000_000_000)
        return overflowAgain ? .max : total
    }
}
