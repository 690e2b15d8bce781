import Synchronization
import Testing
import TestSupport
@testable import Worker

/// Backpressure follows the counts it is told about: paused at either mark, resumed below both, never after stop.
@Suite(.timeLimit(.minutes(1))) struct IntakeThrottleTests {
    private final class Counts: Sendable {
        let batches = Atomic<Int>(0)
        let transfers = Atomic<Int>(0)
        let actions = Locked<[String]>([])
    }

    private func throttle(_ counts: Counts) -> IntakeThrottle {
        IntakeThrottle(marks: .init(batches: 3, queuedFiles: 2),
                       busyBatches: { counts.batches.load(ordering: .relaxed) }, queuedFiles: { counts.transfers.load(ordering: .relaxed) },
                       pause: { counts.actions.update { $0.append("pause") } }, resume: { counts.actions.update { $0.append("resume") } },
                       logger: .silent)
    }

    /// An intake task that has started waiting for room (it is registered with the throttle); `then` runs once the
    /// wait ends.
    private func waiting(on throttle: IntakeThrottle, then: @escaping @Sendable () -> Void = {}) async -> Task<Void, Never> {
        let intake = Task {
            await throttle.waitForRoom()
            then()
        }
        await yieldUntil { throttle.waitingCount > 0 }
        return intake
    }

    @Test func aHeldStorePausesIntakeWhateverTheCounts() {
        let counts = Counts()
        let held = Atomic<Bool>(false)
        let throttle = IntakeThrottle(marks: .init(batches: 3, queuedFiles: 2), busyBatches: { 0 }, queuedFiles: { 0 },
                                      pause: { counts.actions.update { $0.append("pause") } },
                                      resume: { counts.actions.update { $0.append("resume") } },
                                      held: { held.load(ordering: .relaxed) }, logger: .silent)
        held.store(true, ordering: .relaxed)
        throttle.recheck()
        #expect(throttle.isPaused)
        held.store(false, ordering: .relaxed)
        throttle.recheck()
        #expect(counts.actions.value == ["pause", "resume"] && !throttle.isPaused)
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

    @Test func intakeWaitsForRoomAtAMarkAndGoesOnBelowBoth() async {
        let counts = Counts()
        let throttle = throttle(counts)
        await throttle.waitForRoom()
        #expect(throttle.room == 3, "below both marks: no wait, and room for the batch mark's three")
        counts.batches.store(3, ordering: .relaxed)
        throttle.recheck()
        #expect(throttle.room == 1, "a take is never empty")
        let taken = Locked(false)
        let intake = await waiting(on: throttle) { taken.update { $0 = true } }
        #expect(!taken.value, "at the batches mark: intake waits")
        counts.batches.store(1, ordering: .relaxed)
        throttle.recheck()
        await waitFor("intake to go on") { await intake.value }
        #expect(taken.value && throttle.room == 2)
    }

    @Test func stoppingOrCancellingReleasesAWaitingIntake() async {
        let counts = Counts()
        counts.transfers.store(2, ordering: .relaxed)
        let stopped = throttle(counts)
        stopped.recheck()
        let intake = await waiting(on: stopped)
        stopped.stop()
        await waitFor("intake to go on") { await intake.value }
        await stopped.waitForRoom()
        #expect(stopped.waitingCount == 0, "after a stop nothing waits: intake only skips what it takes")

        let cancelled = throttle(counts)
        cancelled.recheck()
        let shutdown = await waiting(on: cancelled)
        shutdown.cancel()
        await waitFor("the shutdown to end the wait") { await shutdown.value }
        #expect(cancelled.waitingCount == 0 && cancelled.isPaused, "a cancelled wait ends; the pause stands")
    }

    @Test func afterStopNothingResumesIntake() {
        let counts = Counts()
        let throttle = throttle(counts)
        throttle.stop()
        throttle.recheck()
        #expect(counts.actions.value == ["pause"] && throttle.isPaused)
    }
}
