import Testing

@testable import HTTPTransport

@Suite(.timeLimit(.minutes(1))) struct TransferSlotsTests {
    @Test func waitersGetSlotsInArrivalOrder() async throws {
        let slots = TransferSlots(capacity: 1)
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
        for task in tasks { try await task.value }

        #expect(order.value == ["a", "b", "c", "d"])
        #expect(slots.heldCount == 0)
    }

    @Test func neverMoreThanTheCapacityIsHeld() async throws {
        let slots = TransferSlots(capacity: 3)
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
        let slots = TransferSlots(capacity: 1)
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        await yieldUntil { slots.waitingCount == 1 }

        waiter.cancel()

        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(slots.waitingCount == 0)
        slots.release()
        #expect(slots.heldCount == 0)
    }

    @Test func anAlreadyCancelledTaskTakesNoSlot() async throws {
        let slots = TransferSlots(capacity: 1)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await slots.acquire()
        }

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(slots.heldCount == 0)
    }
}
