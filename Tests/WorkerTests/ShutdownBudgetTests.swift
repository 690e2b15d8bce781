import Foundation
import Testing
import TestSupport
@testable import Worker

/// A shutdown's one budget: `worker.shutdownGrace` from when it started, shared by its steps, each taking what is
/// left; a step still waiting at the deadline is left behind, never waited for. On a manual clock: no sleeping.
@Suite(.timeLimit(.minutes(1))) struct ShutdownBudgetTests {
    @Test func theBudgetCountsFromWhenTheShutdownStartedAndKeepsTimeForClosing() {
        let clock = ManualClock()
        let started = clock.now()
        clock.advance(by: .seconds(3))
        let budget = ShutdownBudget(grace: .seconds(25), startedAt: started, clock: clock)
        #expect(budget.remaining == .seconds(22), "the steps before this one took three seconds of it")
        #expect(budget.forInFlightWork(atMost: .seconds(25)) == .seconds(17), "five seconds are kept for closing")
        #expect(budget.forInFlightWork(atMost: .zero) == .zero, "none after a fatal error")
        clock.advance(by: .seconds(30))
        #expect(budget.remaining == .zero && budget.forInFlightWork(atMost: .seconds(25)) == .zero)
    }

    @Test func aShortGraceKeepsAFifthOfItForClosing() {
        let clock = ManualClock()
        let budget = ShutdownBudget(grace: .seconds(5), startedAt: clock.now(), clock: clock)
        #expect(budget.forInFlightWork(atMost: .seconds(5)) == .seconds(4))
    }

    @Test func aStepThatEndsInTimeGivesItsResult() async throws {
        let clock = ManualClock()
        let budget = ShutdownBudget(grace: .seconds(10), startedAt: clock.now(), clock: clock)
        let answer = try await budget.run { 42 }
        #expect(answer == 42)
        let thrown = await #expect(throws: StepFailure.self) { try await budget.run { throw StepFailure() } }
        #expect(thrown != nil, "a step's own error comes through")
    }

    @Test func aStepStillWaitingAtTheDeadlineIsLeftBehind() async throws {
        let clock = ManualClock()
        let budget = ShutdownBudget(grace: .seconds(10), startedAt: clock.now(), clock: clock)
        let never = Gate()  // a wait nobody ends, and that cannot be cancelled
        let step = Task { try await budget.run { await never.wait() } }
        await yieldUntil { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        let outcome = await waitFor("the step to be given up at the deadline") { await step.result }
        #expect(throws: ShutdownBudget.Exhausted.self) { try outcome?.get() }
        never.open()
    }

    @Test func aBudgetAlreadySpentGivesUpAtOnce() async throws {
        let clock = ManualClock()
        let started = clock.now()
        clock.advance(by: .seconds(11))
        let budget = ShutdownBudget(grace: .seconds(10), startedAt: started, clock: clock)
        let never = Gate()
        let outcome = await waitFor("the step to be given up") { await Task { try await budget.run { await never.wait() } }.result }
        #expect(throws: ShutdownBudget.Exhausted.self) { try outcome?.get() }
        never.open()
    }

    private struct StepFailure: Error {}
}
