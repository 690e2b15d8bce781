import Foundation
import Synchronization
import UploadEngine

/// The time a shutdown has: `worker.shutdownGrace` from the moment it started — a signal or a fatal error — shared
/// by every step, each taking what the steps before it left (DESIGN §4: "no step of a shutdown waits without a
/// deadline"). In-flight batches may use it all but ``closingReserve``, kept for the steps that close the worker
/// (the last snapshots, the producer's flush, the final commit, leaving the group).
struct ShutdownBudget: Sendable {
    /// Why a step was left unfinished: the shutdown's time ran out first.
    struct Exhausted: Error, CustomStringConvertible {
        /// A stable code, as errors of the worker carry.
        let code = "ERR_SHUTDOWN_GRACE_EXHAUSTED"
        var description: String { "\(code): the shutdown grace ran out" }
    }

    /// When every step must have ended.
    let deadline: Date
    /// The part of the grace in-flight work leaves to the closing steps.
    let closingReserve: Duration
    private let clock: any EngineClock

    /// A budget of `grace` counted from `start`; the closing steps keep a fifth of it, at most five seconds.
    init(grace: Duration, startedAt start: Date, clock: any EngineClock = SystemClock()) {
        deadline = start.addingTimeInterval(grace.timeInterval)
        closingReserve = min(grace / 5, .seconds(5))
        self.clock = clock
    }

    /// What is left of the budget now; zero once it ran out.
    var remaining: Duration {
        max(.zero, .seconds(deadline.timeIntervalSince(clock.now())))
    }

    /// How long in-flight work may still take: at most `grace` (zero after a fatal error), and never the time kept
    /// for closing.
    func forInFlightWork(atMost grace: Duration) -> Duration {
        max(.zero, min(grace, remaining - closingReserve))
    }

    /// Runs `step` for what is left of the budget and returns its result, or throws ``Exhausted`` when the deadline
    /// comes first. A step still running then is cancelled and left behind, not waited for: a wait that cannot be
    /// cancelled (a continuation nobody resumes) never holds the shutdown.
    func run<T: Sendable>(_ step: @escaping @Sendable () async throws -> T) async throws -> T {
        let clock = self.clock, deadline = self.deadline
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = Mutex<CheckedContinuation<T, any Error>?>(continuation)
            let running = Mutex<(work: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))
            let finish = { @Sendable (result: Result<T, any Error>) in
                answer.withLock { $0.take() }?.resume(with: result)
                let (work, timer) = running.withLock { $0 }
                work?.cancel()
                timer?.cancel()
            }
            let timer = Task {
                // Cancelled: the step ended first.
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                finish(.failure(Exhausted()))
            }
            let work = Task {
                do { finish(.success(try await step())) } catch { finish(.failure(error)) }
            }
            running.withLock { $0 = (work, timer) }
            // A step that ended before the handles were kept has nothing left to cancel but the other.
            if answer.withLock({ $0 == nil }) {
                work.cancel()
                timer.cancel()
            }
        }
    }
}
