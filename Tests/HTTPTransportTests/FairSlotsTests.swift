import Testing
import HTTPTransport
import TestSupport

/// The first-come-first-served cap shared by HTTP transfers and staging copies.
@Suite(.timeLimit(.minutes(1))) struct FairSlotsTests {
    @Test func waitersGetSlotsInArrivalOrder() async throws {
        let slots = FairSlots(capacity: 1)
        let order = Locked<[String]>([])
        try await slots.acquire()

        var tasks: [Task<Void, any Error>] = []
        for (position, name) in ["a", "b", "c", "d"].enumerated() {
            tasks.append(Task {
                try await slots.acquire()
                order.update { $0.append(name) }
                slots.release()
            })
            await yieldUntil { slots.waitingCount == position + 1 }
        }
        slots.release()
        for task in tasks { try await waitFor("the task to end") { await task.result }?.get() }

        #expect(order.value == ["a", "b", "c", "d"])
        #expect(slots.heldCount == 0)
    }

    @Test func neverMoreThanTheCapacityIsHeld() async throws {
        let slots = FairSlots(capacity: 3)
        let counts = Locked((held: 0, peak: 0))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await slots.acquire()
                    counts.update { counts in
                        counts.held += 1
                        counts.peak = max(counts.peak, counts.held)
                    }
                    await Task.yield()
                    counts.update { $0.held -= 1 }
                    slots.release()
                }
            }
            try await group.waitForAll()
        }

        #expect(counts.value.peak <= 3)
        #expect(counts.value.peak >= 1)
        #expect(slots.heldCount == 0)
    }

    @Test func aWaiterCanBeCancelledAndHoldsNothing() async throws {
        let slots = FairSlots(capacity: 1)
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        await yieldUntil { slots.waitingCount == 1 }

        waiter.cancel()

        await #expect(throws: CancellationError.self) { try await waitFor("waiter to end") { await waiter.result }?.get() }
        #expect(slots.waitingCount == 0)
        slots.release()
        #expect(slots.heldCount == 0)
    }

    @Test func anAlreadyCancelledTaskTakesNoSlot() async throws {
        let slots = FairSlots(capacity: 1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await slots.acquire()
        }

        await #expect(throws: CancellationError.self) { try await waitFor("task to end") { await task.result }?.get() }
        #expect(slots.heldCount == 0)
    }

    /// Starts work that logs `name` and holds its slot until `release` opens; returns once it holds it.
    private func holdSlot(of slots: FairSlots, logging name: String, to log: Locked<[String]>,
                          until release: Gate) async -> Task<Void, any Error> {
        let holding = Gate()
        let work = Task {
            try await slots.run {
                log.update { $0.append(name) }
                holding.open()
                await release.wait()
            }
        }
        await waitFor("the slot to be held") { await holding.wait() }
        return work
    }

    @Test func runWaitsForAFreeSlotAndWaitersRunInArrivalOrder() async throws {
        let slots = FairSlots(capacity: 1)
        let log = Locked<[String]>([])
        let release = Gate()
        let first = await holdSlot(of: slots, logging: "a", to: log, until: release)
        let second = Task { try await slots.run { log.update { $0.append("b") } } }
        await yieldUntil { slots.waitingCount == 1 }
        let third = Task { try await slots.run { log.update { $0.append("c") } } }
        await yieldUntil { slots.waitingCount == 2 }
        #expect(log.value == ["a"], "both later runs wait while the only slot is taken")
        release.open()
        try await waitFor("first to end") { await first.result }?.get()
        try await waitFor("second to end") { await second.result }?.get()
        try await waitFor("third to end") { await third.result }?.get()
        #expect(log.value == ["a", "b", "c"])
        #expect(slots.heldCount == 0)
    }

    @Test func runCancelledWhileWaitingNeverStartsItsWork() async throws {
        let slots = FairSlots(capacity: 1)
        let log = Locked<[String]>([])
        let release = Gate()
        let first = await holdSlot(of: slots, logging: "holder", to: log, until: release)
        let waiter = Task { try await slots.run { log.update { $0.append("waiter") } } }
        await yieldUntil { slots.waitingCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waitFor("waiter to end") { await waiter.result }?.get() }
        release.open()
        try await waitFor("first to end") { await first.result }?.get()
        #expect(log.value == ["holder"])
        let after = try await slots.run { 42 }
        #expect(after == 42, "the cancelled waiter left its place in the queue")
        #expect(slots.heldCount == 0)
    }
    @Test func theObserverHearsEveryChangeOfHeldPlusWaiting() async throws {
        let slots = FairSlots(capacity: 1)
        let seen = Locked<[Int]>([])
        slots.onChange { seen.update { $0.append(slots.heldCount + slots.waitingCount) } }
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        await yieldUntil { slots.waitingCount == 1 }
        slots.release()
        try await waitFor("waiter to end") { await waiter.result }?.get()
        slots.release()
        // Held + waiting went 1, 2, 1 (the waiter took the slot), 0; the observer saw each value it ended at.
        #expect(seen.value.first == 1 && seen.value.contains(2) && seen.value.last == 0, "\(seen.value)")
    }
}
