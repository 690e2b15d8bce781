import Foundation
import Synchronization
import UploadEngine

/// An `EngineClock` that moves only when told: `sleep(until:)` records the deadline and jumps there at once.
final class ManualClock: EngineClock {
    private struct State {
        var now: Date
        var sleeps: [Date] = []
    }

    private let state: Mutex<State>

    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex(State(now: now))
    }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(deadline)
            state.now = max(state.now, deadline)
        }
    }

    func advance(by duration: Duration) {
        state.withLock { $0.now = $0.now + duration }
    }

    /// The deadlines of every sleep so far, in order.
    var sleeps: [Date] { state.withLock { $0.sleeps } }
}
