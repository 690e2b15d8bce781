import Synchronization
import Testing
import TestSupport
@testable import Worker

/// Backpressure follows the counts it is told about: paused at either mark, resumed below both, never after stop.
@Suite struct IntakeThrottleTests {
    private final class Counts: Sendable {
        let batches = Atomic<Int>(0)
        let transfers = Atomic<Int>(0)
        let actions = Locked<[String]>([])
    }

    private func throttle(_ counts: Counts) -> IntakeThrottle {
        IntakeThrottle(marks: .init(batches: 3, transfers: 2),
                       busyBatches: { counts.batches.load(ordering: .relaxed) }, transfers: { counts.transfers.load(ordering: .relaxed) },
                       pause: { counts.actions.update { $0.append("pause") } }, resume: { counts.actions.update { $0.append("resume") } },
                       logger: .silent)
    }

    @Test func eitherMarkPausesAndOnlyBothBelowResume() {
        let counts = Counts()
        let throttle = throttle(counts)
        throttle.recheck()
        #expect(counts.actions.value.isEmpty, "below both marks: nothing to do")
        counts.transfers.store(2, ordering: .relaxed)
        throttle.recheck()
        counts.batches.store(3, ordering: .relaxed)
        throttle.recheck()
        counts.transfers.store(0, ordering: .relaxed)
        throttle.recheck()
        #expect(counts.actions.value == ["pause"] && throttle.isPaused, "still at the batches mark")
        counts.batches.store(2, ordering: .relaxed)
        throttle.recheck()
        #expect(counts.actions.value == ["pause", "resume"] && !throttle.isPaused)
    }

    @Test func afterStopNothingResumesIntake() {
        let counts = Counts()
        let throttle = throttle(counts)
        throttle.stop()
        throttle.recheck()
        #expect(counts.actions.value == ["pause"] && throttle.isPaused)
    }
}
