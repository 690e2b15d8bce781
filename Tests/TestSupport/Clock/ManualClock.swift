import Foundation
import Synchronization
import UploadEngine

/// A clock that moves only when a test says so (`advance`), or, by choice, when code under test sleeps on it.
///
/// Every deadline asked of `sleep(until:)` is recorded in `sleeps`, in order, whichever way the clock sleeps.
public final class ManualClock: EngineClock {
    /// What `sleep(until:)` does.
    public enum Sleeping: Sendable {
        /// A sleeper waits until `advance` passes its deadline, earliest first: timers tested step by step.
        case untilAdvanced
        /// A sleep moves the clock to its deadline and returns at once: back-off between attempts, whose length the
        /// test reads from `sleeps` instead of waiting for it.
        case jumpsToDeadline
    }

    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Int: Sleeper] = [:]
        var nextId = 0
        /// Sleeps cancelled before they registered; they must not register afterwards.
        var cancelledEarly: Set<Int> = []
        /// The deadline of every sleep so far.
        var sleeps: [Date] = []
    }

    private let state: Mutex<State>
    private let sleeping: Sleeping

    /// A clock at `start` whose sleeps behave as `sleeping` says.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), sleeping: Sleeping = .untilAdvanced) {
        state = Mutex(State(now: start))
        self.sleeping = sleeping
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock (always 0 unless it sleeps `untilAdvanced`).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of every sleep so far, in order.
    public var sleeps: [Date] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Date) async throws {
        switch sleeping {
        case .untilAdvanced:
            try await sleepUntilAdvanced(deadline)
        case .jumpsToDeadline:
            try Task.checkCancellation()
            state.withLock { state in
                state.sleeps.append(deadline)
                state.now = max(state.now, deadline)
            }
        }
    }

    private func sleepUntilAdvanced(_ deadline: Date) async throws {
        let id = state.withLock { state in
            state.sleeps.append(deadline)
            defer { state.nextId += 1 }
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now + duration
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value)
        }
        due.forEach { $0.continuation.resume() }
    }
}
