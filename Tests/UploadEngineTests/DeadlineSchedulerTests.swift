import Foundation
import Testing
@testable import UploadEngine
import TestSupport

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
        var (queue, scheduled) = Self.queueOf500(seed: 7)

        #expect(Self.drain(&queue) == scheduled.sorted(by: Self.precedes))
    }

    /// Compaction rebuilds the heap in place: what is left must still come out in deadline order.
    @Test func aCompactedQueueStillOrdersByDeadline() {
        var (queue, scheduled) = Self.queueOf500(seed: 11)

        queue.retain { $0.ticket.rawValue % 3 == 0 }

        #expect(Self.drain(&queue) == scheduled.filter { $0.ticket % 3 == 0 }.sorted(by: Self.precedes))
    }

    private struct Scheduled: Equatable {
        var seconds: Double
        var ticket: UInt64
    }

    private static func precedes(_ a: Scheduled, _ b: Scheduled) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.ticket < b.ticket
    }

    /// 500 entries with tickets 1...500 and seeded deadlines among 50 seconds, so many share a deadline.
    private static func queueOf500(seed: UInt64) -> (DeadlineQueue, [Scheduled]) {
        var queue = DeadlineQueue()
        var generator = JitterRandom(seed: seed)
        var scheduled: [Scheduled] = []
        for ticket in 1...500 as ClosedRange<UInt64> {
            let entry = Scheduled(seconds: Double(generator.next() % 50), ticket: ticket)
            scheduled.append(entry)
            queue.insert(.init(deadline: Date(timeIntervalSince1970: entry.seconds), ticket: .init(rawValue: ticket)))
        }
        return (queue, scheduled)
    }

    private static func drain(_ queue: inout DeadlineQueue) -> [Scheduled] {
        var popped: [Scheduled] = []
        while let entry = queue.removeFirst() {
            popped.append(Scheduled(seconds: entry.deadline.timeIntervalSince1970, ticket: entry.ticket.rawValue))
        }
        return popped
    }
}
