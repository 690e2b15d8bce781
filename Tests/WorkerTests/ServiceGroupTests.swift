import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Worker

/// The worker's parts stop in reverse start order, each once the one stopped before it returned, under one deadline;
/// a stop signal ends a periodic wait early.
@Suite(.timeLimit(.minutes(1))) struct ServiceGroupTests {
    private struct Recorded: Service {
        let name: String
        let log: Locked<[String]>
        /// Holds the stop up until opened, like a drain that takes a while.
        var drain: Gate?

        func run(until shutdown: ShutdownSignal) async {
            log.update { $0.append("\(name) running") }
            await shutdown.wait()
            log.update { $0.append("\(name) stopping") }
            await drain?.wait()
            log.update { $0.append("\(name) stopped") }
        }
    }

    @Test func servicesStopInReverseStartOrderEachAfterTheOneBeforeReturned() async {
        let log = Locked<[String]>([])
        let drain = Gate()
        let shutdown = ShutdownSignal()
        let group = ServiceGroup(services: [Recorded(name: "kafka", log: log), Recorded(name: "intake", log: log, drain: drain)],
                                 logger: .silent)
        let running = Task { await group.run(until: shutdown) }
        await yieldUntil { log.value.count == 2 }
        shutdown.request()
        await yieldUntil { log.value.contains("intake stopping") }
        for _ in 0..<100 { await Task.yield() }
        #expect(!log.value.contains("kafka stopping"), "kafka is told only once intake has drained")
        drain.open()
        await waitFor("the group to return") { await running.value }
        #expect(log.value.suffix(4) == ["intake stopping", "intake stopped", "kafka stopping", "kafka stopped"])
    }

    @Test func aServiceStillRunningAtTheDeadlineIsCancelledAndTheNextOneStillStops() async {
        /// Ignores its stop signal; only cancellation ends it.
        struct Stubborn: Service {
            var name: String { "stubborn" }
            func run(until shutdown: ShutdownSignal) async {
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        let log = Locked<[String]>([])
        let shutdown = ShutdownSignal()
        let group = ServiceGroup(services: [Recorded(name: "kafka", log: log), Stubborn()], logger: .silent, grace: { .milliseconds(200) })
        let running = Task { await group.run(until: shutdown) }
        await yieldUntil { log.value.count == 1 }
        shutdown.request()
        await waitFor("the group to return past its deadline", timeout: .seconds(20)) { await running.value }
        #expect(log.value == ["kafka running", "kafka stopping", "kafka stopped"], "the next service was still told to stop")
    }

    @Test func aGroupWhoseServicesAllEndedByThemselvesReturnsWithoutASignal() async {
        struct Brief: Service {
            var name: String { "brief" }
            func run(until shutdown: ShutdownSignal) async {}
        }
        await ServiceGroup(services: [Brief(), Brief()], logger: .silent).run(until: ShutdownSignal())
    }

    @Test func aPeriodicWaitEndsWithTheStopAndLeavesNoWaiterBehindOnItsTimeout() async {
        let shutdown = ShutdownSignal()
        #expect(await shutdown.wait(upTo: .zero) == false)
        let waiting = Task { await shutdown.wait(upTo: .seconds(3600)) }
        await Task.yield()
        shutdown.request()
        #expect(await waitFor("the wait to end") { await waiting.value } == true, "ends with the stop, not after its hour")
        #expect(await shutdown.wait(upTo: .seconds(3600)) == true, "already stopped: at once")
    }

    /// What the command's watchdog relies on: it is told of the stop on the requesting thread, however the stop came,
    /// and the shutdown's budget counts from that moment.
    @Test func aStopTellsItsWatchersOnceAndRemembersWhenItWasAskedFor() {
        let shutdown = ShutdownSignal()
        let told = Locked(0)
        shutdown.whenRequested { told.update { $0 += 1 } }
        #expect(told.value == 0 && shutdown.requestedAt == nil)
        let before = Date()
        shutdown.request()
        shutdown.request()
        #expect(told.value == 1, "once, at the first request")
        #expect(shutdown.requestedAt.map { $0 >= before } == true)
        shutdown.whenRequested { told.update { $0 += 1 } }
        #expect(told.value == 2, "a watcher arriving after the stop is told at once")
    }
}
