/// The waits between attempts at a commit the broker refused for a passing reason (the coordinator moving, a
/// rebalance, a timeout): 50 ms, doubling, at most 500 ms. The one backoff of the Kafka clients — the asynchronous
/// `commit(retryFor:)` and the blocking commit before partitions are released both wait by it. Deterministic, not
/// jittered: one consumer retries against its own coordinator, so there is no crowd to spread out.
enum CommitBackoff {
    static let first = Duration.milliseconds(50)
    static let longest = Duration.milliseconds(500)

    /// The wait after the `failedAttempt`-th attempt (1-based).
    static func delay(afterAttempt failedAttempt: Int) -> Duration {
        var delay = first
        for _ in 1..<max(failedAttempt, 1) where delay < longest { delay = min(delay * 2, longest) }
        return delay
    }
}
