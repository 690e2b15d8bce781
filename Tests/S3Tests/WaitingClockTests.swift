import Foundation
@testable import S3
import Synchronization
import Testing
import UploadEngine

/// The sleeps of a part's retry loop (S3Storage.withAttempts): cut into pieces no longer than the interval, with the
/// wait told after each, so the engine's stall clock hears of a backoff or a `Retry-After` however long it is.
@Suite struct WaitingClockTests {
    /// Virtual time that jumps to each deadline at once, recording the sleeps.
    final class JumpingClock: EngineClock {
        private let state = Mutex<(now: Date, sleeps: [Date])>((Date(timeIntervalSince1970: 1_000), []))
        func now() -> Date { state.withLock { $0.now } }
        func sleep(until deadline: Date) async throws {
            state.withLock { state in
                state.sleeps.append(deadline)
                state.now = max(state.now, deadline)
            }
        }
        var sleeps: [TimeInterval] { state.withLock { state in state.sleeps.map { $0.timeIntervalSince1970 - 1_000 } } }
    }

    @Test func aSleepIsCutIntoPiecesOfTheIntervalAndTheWaitToldAfterEach() async throws {
        let base = JumpingClock()
        let told = Mutex(0)
        let clock = WaitingClock(base: base, interval: .milliseconds(300), waiting: { told.withLock { $0 += 1 } })

        try await clock.sleep(until: base.now().addingTimeInterval(2))

        #expect(base.sleeps.map { ($0 * 10).rounded() / 10 } == [0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.0])
        #expect(told.withLock { $0 } == 7)
        try await clock.sleep(until: base.now().addingTimeInterval(-1))
        #expect(told.withLock { $0 } == 7, "a deadline already past sleeps not at all")
    }
}
