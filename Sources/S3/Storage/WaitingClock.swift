import Foundation
import UploadEngine

/// A clock whose sleeps are cut into pieces of at most `interval`, with `waiting` told after each: a retry's backoff
/// (or storage's `Retry-After`) is a wait on storage's answer, and the engine's stall clock hears of it.
struct WaitingClock: EngineClock {
    let base: any EngineClock
    let interval: Duration
    let waiting: @Sendable () -> Void

    func now() -> Date { base.now() }

    func sleep(until deadline: Date) async throws {
        while true {
            let now = base.now()
            guard now < deadline else { return }
            // No interval at all: one sleep, rather than a loop that never waits.
            let step = interval > .zero ? min(deadline, now.addingTimeInterval(interval.timeInterval)) : deadline
            try await base.sleep(until: step)
            waiting()
            // A clock whose sleep does not move it (a test's) would loop here for ever: its one sleep is the wait.
            guard base.now() > now else { return }
        }
    }
}
