import Synchronization
import Testing
import UploadEngineTesting

@testable import Worker

/// Bulk copies share a fixed number of slots, first come first served.
@Suite struct CopySlotsTests {
    /// What the copies did, in order.
    private final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Yields until `slots` has `count` copies waiting (bounded, so a broken limiter fails instead of hanging).
    private func waitUntil(_ slots: CopySlots, hasWaiting count: Int) async {
        for _ in 0..<100_000 where slots.waitingCount != count { await Task.yield() }
    }

    /// Starts a copy that logs `name` and holds its slot until `release` opens; returns once it holds it.
    private func holdSlot(of slots: CopySlots, logging name: String, to log: Log, until release: Gate) async -> Task<Void, any Error> {
        let holding = Gate()
        let copy = Task {
            try await slots.run {
                log.append(name)
                holding.open()
                await release.wait()
            }
        }
        await holding.wait()
        return copy
    }

    @Test func aCopyWaitsForAFreeSlotAndWaitersRunInArrivalOrder() async throws {
        let slots = CopySlots(width: 1)
        let log = Log()
        let release = Gate()
        let first = await holdSlot(of: slots, logging: "a", to: log, until: release)
        let second = Task { try await slots.run { log.append("b") } }
        await waitUntil(slots, hasWaiting: 1)
        let third = Task { try await slots.run { log.append("c") } }
        await waitUntil(slots, hasWaiting: 2)
        #expect(log.all == ["a"], "both later copies wait while the only slot is taken")
        release.open()
        try await first.value
        try await second.value
        try await third.value
        #expect(log.all == ["a", "b", "c"])
        #expect(slots.waitingCount == 0)
    }

    @Test func aCopyCancelledWhileWaitingNeverStarts() async throws {
        let slots = CopySlots(width: 1)
        let log = Log()
        let release = Gate()
        let first = await holdSlot(of: slots, logging: "holder", to: log, until: release)
        let waiter = Task { try await slots.run { log.append("waiter") } }
        await waitUntil(slots, hasWaiting: 1)
        waiter.cancel()
        release.open()
        try await first.value
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(log.all == ["holder"])
        let after = try await slots.run { 42 }
        #expect(after == 42, "the cancelled waiter gave its slot back")
    }
}
