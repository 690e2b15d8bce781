import Foundation
import Testing
@testable import UploadEngine

/// Backoff arithmetic on any configured value: `base × 2^attempt` and the conversion to nanoseconds saturate at the
/// cap instead of trapping on overflow.
@Suite struct RetryOverflowTests {
    @Test(arguments: [Duration.seconds(Int64.max), .seconds(86_400), .milliseconds(1)])
    func theCeilingNeverExceedsTheCapAndNeverTraps(base: Duration) {
        let policy = RetryPolicy(maxAttempts: 100, baseDelay: base, maxDelay: .seconds(Int64.max))
        for attempt in [1, 2, 31, 62, 63, 64, 100, Int.max] {
            #expect(policy.backoffCeiling(afterAttempt: attempt) <= policy.maxDelay)
        }
        var random = JitterRandom(seed: 1)
        let delay = policy.delay(afterAttempt: 99, retryAfter: nil, using: &random)
        #expect(delay.map { $0 >= .zero } == true)
    }

    @Test func theCeilingStillDoublesBelowTheCap() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
        #expect((1...7).map { policy.backoffCeiling(afterAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
    }

    @Test func nanosecondsSaturate() {
        #expect(Duration.seconds(Int64.max).totalNanoseconds == .max)
        #expect(Duration.seconds(9_223_372_036).totalNanoseconds == 9_223_372_036_000_000_000)
        #expect(Duration.milliseconds(1500).totalNanoseconds == 1_500_000_000)
        #expect(Duration.seconds(-5).totalNanoseconds == 0)
    }
}
