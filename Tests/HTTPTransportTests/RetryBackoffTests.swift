import Testing

@testable import HTTPTransport

@Suite struct RetryBackoffTests {
    @Test func ceilingsDoubleFromTheBaseUpToTheCap() {
        let backoff = RetryBackoff(baseDelay: .seconds(1), maxDelay: .seconds(30), maxAttempts: 10)
        #expect((1...8).map { backoff.ceiling(afterAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30, 30].map { .seconds($0) })
    }

    @Test func fullJitterStaysWithinZeroAndTheCeiling() {
        let ceiling = Duration.milliseconds(1500)
        let waits = (0..<1000).map { _ in RetryBackoff.fullJitter(ceiling) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= ceiling })
        #expect(Set(waits).count > 900)
        #expect(RetryBackoff.fullJitter(.zero) == .zero)
    }

    @Test func atLeastOneAttemptIsAlwaysMade() {
        #expect(RetryBackoff(maxAttempts: 0).maxAttempts == 1)
    }
}
