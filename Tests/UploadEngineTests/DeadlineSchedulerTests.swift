import Foundation
import Testing
@testable import UploadEngine
import UploadEngineTesting

/// The one timer a worker's batches share: fires each callback once, in deadline order, and keeps one sleeper.
@Suite(.timeLimit(.minutes(1))) struct DeadlineSchedulerTests {
    let clock = ManualClock()

    @Test func callbacksFireOnceAtTheirDeadlinesEarliestFirst() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let fired = Locked<[String]>([])
        let start = clock.now()
        for (name, seconds) in [("c", 30.0), ("a", 10.0), ("b", 20.0)] {
            scheduler.schedule(at: start + .seconds(seconds)) { _ in fired.update { $0.append(name) } }
        }
        await yieldUntil { clock.sleeperCount == 1 }

        clock.advance(by: .seconds(9))
        await yieldUntil { clock.sleeperCount == 1 }
        #expect(fired.value.isEmpty)

        clock.advance(by: .seconds(16))
        await yieldUntil { fired.value.count == 2 && clock.sleeperCount == 1 }
        #expect(fired.value == ["a", "b"])

        clock.advance(by: .seconds(60))
        await yieldUntil { fired.value.count == 3 && clock.sleeperCount == 0 }
        #expect(fired.value == ["a", "b", "c"])
        #expect(scheduler.scheduledCount == 0)
    }

    @Test func laterDeadlinesJoinTheArmedSleeperInsteadOfStartingTheirOwn() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let start = clock.now()
        scheduler.schedule(at: start + .seconds(30)) { _ in }
        await yieldUntil { clock.sleeperCount == 1 }
        for offset in 1...50 {
            scheduler.schedule(at: start + .seconds(30 + Double(offset))) { _ in }
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(clock.sleeperCount == 1)
        #expect(scheduler.armingCount == 1)
        #expect(scheduler.scheduledCount == 51)
    }

    @Test func anEarlierDeadlineReplacesTheArmedSleeper() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let fired = Locked<[String]>([])
        let start = clock.now()
        scheduler.schedule(at: start + .seconds(30)) { _ in fired.update { $0.append("late") } }
        await yieldUntil { clock.sleeperCount == 1 }
        scheduler.schedule(at: start + .seconds(1)) { _ in fired.update { $0.append("early") } }
        await yieldUntil { clock.sleeperCount == 1 }
        #expect(scheduler.armingCount == 2)

        clock.advance(by: .seconds(1))
        await yieldUntil { fired.value == ["early"] && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(29))
        await yieldUntil { fired.value == ["early", "late"] }
    }

    @Test func aCancelledTicketNeverFiresAndTheLastCancelStopsTheSleeper() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let fired = Locked<[String]>([])
        let start = clock.now()
        let first = scheduler.schedule(at: start + .seconds(5)) { _ in fired.update { $0.append("first") } }
        let second = scheduler.schedule(at: start + .seconds(6)) { _ in fired.update { $0.append("second") } }
        scheduler.schedule(at: start + .seconds(7)) { _ in fired.update { $0.append("third") } }
        scheduler.cancel(first)
        clock.advance(by: .seconds(10))
        await yieldUntil { fired.value.count == 2 }
        #expect(fired.value == ["second", "third"])
        scheduler.cancel(second)  // already fired: nothing happens

        let lone = scheduler.schedule(at: clock.now() + .seconds(30)) { _ in fired.update { $0.append("lone") } }
        await yieldUntil { clock.sleeperCount == 1 }
        scheduler.cancel(lone)
        await yieldUntil { clock.sleeperCount == 0 }
        clock.advance(by: .seconds(60))
        for _ in 0..<100 { await Task.yield() }
        #expect(fired.value == ["second", "third"])
    }

    @Test func aCallbackMayScheduleAnEarlierDeadlineThanTheNextOne() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let fired = Locked<[String]>([])
        let start = clock.now()
        scheduler.schedule(at: start + .seconds(60)) { _ in fired.update { $0.append("last") } }
        scheduler.schedule(at: start + .seconds(1)) { _ in
            fired.update { $0.append("first") }
            scheduler.schedule(at: start + .seconds(2)) { _ in fired.update { $0.append("chained") } }
        }
        clock.advance(by: .seconds(1))
        await yieldUntil { fired.value == ["first"] && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        await yieldUntil { fired.value == ["first", "chained"] && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(58))
        await yieldUntil { fired.value == ["first", "chained", "last"] }
    }

    @Test func callbacksReceiveTheirOwnTicket() async {
        let scheduler = DeadlineScheduler(clock: clock)
        let received = Locked<DeadlineScheduler.Ticket?>(nil)
        let ticket = scheduler.schedule(at: clock.now() + .seconds(1)) { ticket in received.update { $0 = ticket } }
        clock.advance(by: .seconds(1))
        await yieldUntil { received.value != nil }
        #expect(received.value == ticket)
    }

    @Test func cancelledEntriesDoNotPileUpInTheQueue() {
        let scheduler = DeadlineScheduler(clock: clock)
        let start = clock.now()
        let keep = scheduler.schedule(at: start + .seconds(1000)) { _ in }
        for offset in 0..<10_000 {
            scheduler.cancel(scheduler.schedule(at: start + .seconds(30 + Double(offset))) { _ in })
        }
        #expect(scheduler.scheduledCount == 1)
        #expect(scheduler.queuedEntryCount <= 2 * 1 + 64 + 1)
        scheduler.cancel(keep)
        #expect(scheduler.queuedEntryCount == 0)
    }

    @Test func theQueueOrdersByDeadlineThenBySchedulingOrder() {
        var queue = DeadlineQueue()
        let start = Date(timeIntervalSince1970: 0)
        var generator = JitterRandom(seed: 7)
        var expected: [(Double, UInt64)] = []
        for ticket in 1...500 as ClosedRange<UInt64> {
            let seconds = Double(generator.next() % 50)
            expected.append((seconds, ticket))
            queue.insert(.init(deadline: start + .seconds(seconds), ticket: .init(rawValue: ticket)))
        }
        var popped: [(Double, UInt64)] = []
        while let entry = queue.removeFirst() {
            popped.append((entry.deadline.timeIntervalSince1970, entry.ticket.rawValue))
        }
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        #expect(popped.map(\.0) == expected.map(\.0))
        #expect(popped.map(\.1) == expected.map(\.1))
    }

    /// Compaction rebuilds the heap in place: what is left must still come out in deadline order.
    @Test func aCompactedQueueStillOrdersByDeadline() {
        var queue = DeadlineQueue()
        let start = Date(timeIntervalSince1970: 0)
        var generator = JitterRandom(seed: 11)
        var kept: [(Double, UInt64)] = []
        for ticket in 1...500 as ClosedRange<UInt64> {
            let seconds = Double(generator.next() % 50)
            if ticket % 3 == 0 { kept.append((seconds, ticket)) }
            queue.insert(.init(deadline: start + .seconds(seconds), ticket: .init(rawValue: ticket)))
        }
        queue.retain { $0.ticket.rawValue % 3 == 0 }
        var popped: [(Double, UInt64)] = []
        while let entry = queue.removeFirst() {
            popped.append((entry.deadline.timeIntervalSince1970, entry.ticket.rawValue))
        }
        kept.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        #expect(popped.map(\.0) == kept.map(\.0))
        #expect(popped.map(\.1) == kept.map(\.1))
    }
}
