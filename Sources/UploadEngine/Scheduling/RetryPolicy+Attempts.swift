import Foundation

extension RetryPolicy {
    /// What a failed attempt says about the next: whether one may help, and the server's `Retry-After`.
    public struct Verdict: Sendable {
        public var retryable: Bool
        public var retryAfter: Duration?

        public init(retryable: Bool, retryAfter: Duration? = nil) {
            self.retryable = retryable
            self.retryAfter = retryAfter
        }
    }

    /// The one retry loop of Attache's clients: runs `operation` (given its 1-based attempt) until it succeeds, fails
    /// in a way `judge` says a retry cannot help, or the policy runs out of attempts, sleeping the policy's backoff
    /// (at least `Retry-After`) on `clock` between attempts. `onRetry` hears each failure that is tried again. (A
    /// file's own attempts are not run here: the batch model schedules them, so they outlive a process.)
    ///
    /// - Throws: the last attempt's error; `CancellationError` as soon as the task is cancelled.
    public func run<Result: Sendable>(
        on clock: any EngineClock = SystemClock(),
        judge: (any Error) -> Verdict,
        onRetry: (_ error: any Error, _ attempt: Int) -> Void = { _, _ in },
        _ operation: (_ attempt: Int) async throws -> Result
    ) async throws -> Result {
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            try Task.checkCancellation()
            do {
                return try await operation(attempt)
            } catch {
                let verdict = judge(error)
                guard verdict.retryable,
                    let delay = self.delay(afterAttempt: attempt, retryAfter: verdict.retryAfter, using: &random)
                else { throw error }
                onRetry(error, attempt)
                try await clock.sleep(until: clock.now() + delay)
                attempt += 1
            }
        }
    }
}
