import Foundation
import Testing
@testable import UploadEngine

/// The one retry loop (`RetryPolicy.run`) that storage steps and forwarded records go through.
@Suite struct RetryLoopTests {
    /// Sleeps nothing, and remembers how long each sleep was to be.
    final class InstantClock: EngineClock, @unchecked Sendable {
        private let lock = NSLock()
        private var slept: [TimeInterval] = []
        var sleeps: [TimeInterval] { lock.withLock { slept } }
        func now() -> Date { Date(timeIntervalSince1970: 1_800_000_000) }
        func sleep(until deadline: Date) async throws {
            lock.withLock { slept.append(deadline.timeIntervalSince(now())) }
        }
    }

    struct Failure: Error, Equatable {
        var attempt: Int
        var retryable = true
        var retryAfter: Duration?
    }

    static let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(2))

    static func judge(_ error: any Error) -> RetryPolicy.Verdict {
        let failure = error as? Failure
        return .init(retryable: failure?.retryable ?? false, retryAfter: failure?.retryAfter)
    }

    @Test func failuresARetryCanHelpAreTriedAgainUntilOneSucceeds() async throws {
        let clock = InstantClock()
        var retried: [Int] = []
        let result = try await Self.policy.run(on: clock, judge: Self.judge, onRetry: { _, attempt in retried.append(attempt) }) { attempt in
            guard attempt == 3 else { throw Failure(attempt: attempt, retryAfter: attempt == 2 ? .seconds(1) : nil) }
            return "attempt \(attempt)"
        }
        #expect(result == "attempt 3")
        #expect(retried == [1, 2])
        #expect(clock.sleeps.count == 2 && clock.sleeps[0] <= 0.1 && clock.sleeps[1] >= 1, "backoff, Retry-After as a floor")
    }

    @Test func aFailureNoRetryHelpsAndTheLastAttemptEndTheLoopWithTheirError() async {
        await #expect(throws: Failure(attempt: 1, retryable: false)) {
            try await Self.policy.run(on: InstantClock(), judge: Self.judge) { attempt in
                throw Failure(attempt: attempt, retryable: false)
            }
        }
        await #expect(throws: Failure(attempt: 4)) {
            try await Self.policy.run(on: InstantClock(), judge: Self.judge) { attempt in throw Failure(attempt: attempt) }
        }
        await #expect(throws: Failure(attempt: 1, retryAfter: .seconds(60)), "a Retry-After past maxDelay ends the retries") {
            try await Self.policy.run(on: InstantClock(), judge: Self.judge) { attempt in
                throw Failure(attempt: attempt, retryAfter: .seconds(60))
            }
        }
    }

    @Test func aCancelledTaskMakesNoFurtherAttempt() async {
        let attempts = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var made = 0
            _ = try? await Self.policy.run(on: InstantClock(), judge: Self.judge) { attempt -> Int in
                made = attempt
                throw Failure(attempt: attempt)
            }
            return made
        }
        #expect(await attempts.value == 0)
    }
}
