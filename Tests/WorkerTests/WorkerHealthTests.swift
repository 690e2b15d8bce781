import Testing
@testable import Worker

@Suite struct WorkerHealthTests {
    @Test func newWorkerIsNeitherLiveNorReady() {
        let health = WorkerHealth()

        #expect(!health.isLive)
        #expect(!health.isReady)
        #expect(health.liveness == .failing("starting"))
        #expect(health.readiness == .failing("starting"))
        #expect(health.failureReason == nil)
    }

    @Test func aHoldKeepsReadinessOffWhateverTheAssignmentSays() {
        let health = WorkerHealth()
        health.markLive()
        health.markHeld("the local batch store cannot be written")
        health.markReady(true)
        #expect(health.readiness == .failing("the local batch store cannot be written"))
        #expect(health.isLive, "a hold is no failure: the worker recovers by itself")
        health.markHeld(nil)
        #expect(health.readiness == .passing)
    }

    @Test func liveWorkerIsNotReadyUntilMarkedReady() {
        let health = WorkerHealth()
        health.markLive()

        #expect(health.isLive)
        #expect(!health.isReady)

        health.markReady(true)

        #expect(health.isReady)
        #expect(health.readiness == .passing)
        #expect(health.notReadyReason == nil)
    }

    @Test func readinessIsNotGrantedBeforeTheWorkerIsLive() {
        let health = WorkerHealth()
        health.markReady(true)

        #expect(!health.isReady)
        #expect(health.readiness == .failing("starting"))
    }

    @Test func notReadyCarriesItsReasonOrADefault() {
        let health = WorkerHealth()
        health.markLive()

        health.markReady(false, reason: "not connected to Kafka")
        let withReason = health.readiness
        health.markReady(false)
        let withoutReason = health.readiness

        #expect(withReason == .failing("not connected to Kafka"))
        #expect(withoutReason == .failing("not ready"))
    }

    @Test func failureIsFinalAndKeepsTheFirstReason() {
        let health = WorkerHealth()
        health.markLive()
        health.markReady(true)

        health.markFailed(reason: "fatal: offsets cannot be committed")
        health.markFailed(reason: "a later error")
        health.markLive()
        health.markReady(true)

        #expect(!health.isLive)
        #expect(!health.isReady)
        #expect(health.failureReason == "fatal: offsets cannot be committed")
        #expect(health.liveness == .failing("failed: fatal: offsets cannot be committed"))
        #expect(health.readiness == .failing("failed: fatal: offsets cannot be committed"))
    }
}
