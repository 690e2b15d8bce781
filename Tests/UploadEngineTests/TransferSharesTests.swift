import Testing
import TestSupport
@testable import UploadEngine

/// The worker's transfer slots shared across tenants (DESIGN §12 *Fair share*), driven by a model of batches: each
/// has files waiting, one slot per file in flight, and gives a slot back when a file finishes.
@Suite struct TransferSharesTests {
    /// Batches as a runner would drive them: ask for what they can use, start a file per slot, finish files on demand.
    final class Model: @unchecked Sendable {
        struct Batch {
            var tenant: String
            var claim: TransferShares.Claim
            var waiting: Int
            var concurrency: Int
            var running = 0
        }

        let shares: TransferShares
        var batches: [Batch] = []
        /// Files started, by batch index, in the order they started.
        var started: [Int] = []
        private var woken: [Int] = []

        init(_ policy: TransferShares.Policy, queueMark: Int = .max) {
            shares = TransferShares(policy: policy, queueMark: queueMark)
        }

        @discardableResult
        func add(tenant: String, files: Int, concurrency: Int = 1) -> Int {
            let index = batches.count
            let claim = shares.claim { [unowned self] in woken.append(index) }
            batches.append(Batch(tenant: tenant, claim: claim, waiting: files, concurrency: concurrency))
            reconcile(index)
            drainWakes()
            return index
        }

        /// One file of `index` finishes and gives its slot back.
        func finish(_ index: Int) {
            precondition(batches[index].running > 0)
            batches[index].running -= 1
            reconcile(index)
            drainWakes()
        }

        /// The oldest running file, of whichever batch started it first, finishes.
        func finishOldest() {
            var running = batches.map(\.running)
            var remaining: [Int] = []
            // Files still running, in the order they started.
            for index in started.reversed() where running[index] > 0 {
                running[index] -= 1
                remaining.append(index)
            }
            finish(remaining.last!)
        }

        private func reconcile(_ index: Int) {
            while true {
                let batch = batches[index]
                let wanted = batch.running + min(batch.waiting, batch.concurrency - batch.running)
                let answer = shares.reconcile(batch.claim, .init(tenant: batch.tenant, inUse: batch.running, wanted: wanted, waiting: batch.waiting))
                answer.wakes.forEach { $0() }
                let startable = min(answer.held - batch.running, batch.waiting)
                guard startable > 0 else { return }
                batches[index].running += startable
                batches[index].waiting -= startable
                started += Array(repeating: index, count: startable)
            }
        }

        private func drainWakes() {
            while !woken.isEmpty {
                let index = woken.removeFirst()
                reconcile(index)
            }
        }
    }

    @Test func anotherTenantsOneFileTakesTheNextFreeSlot() {
        let model = Model(.init(capacity: 2))
        let crowd = model.add(tenant: "a", files: 2_000, concurrency: 2_000)
        #expect(model.started == [crowd, crowd])
        let single = model.add(tenant: "b", files: 1)
        #expect(model.shares.pendingCount == 1_998 + 1)

        model.finish(crowd)

        #expect(model.started.last == single, "b's one file goes before a's 1,998 others")
        #expect(model.shares.held(by: "b") == 1)
    }

    @Test func withinATenantBatchesKeepTheirArrivalOrder() {
        let model = Model(.init(capacity: 1))
        let first = model.add(tenant: "a", files: 3)
        let second = model.add(tenant: "a", files: 2)
        let third = model.add(tenant: "a", files: 1)
        for _ in 0..<5 { model.finishOldest() }
        #expect(model.started == [first, first, first, second, second, third])
    }

    @Test func weightsOfThreeToOneGiveAThreeToOneShare() {
        let model = Model(.init(capacity: 4, weights: ["heavy": 3]))
        let heavy = model.add(tenant: "heavy", files: 10_000, concurrency: 10_000)
        let light = model.add(tenant: "light", files: 10_000, concurrency: 10_000)
        for _ in 0..<4_000 { model.finishOldest() }
        let counted = model.started.dropFirst(4)
        let heavyShare = counted.filter { $0 == heavy }.count
        let lightShare = counted.filter { $0 == light }.count
        // Exact up to where the counted window cuts a turn.
        #expect(abs(heavyShare - 3_000) <= 3, "heavy: \(heavyShare) of 4,000")
        #expect(heavyShare + lightShare == 4_000)
    }

    @Test func aTenantNeverHoldsMoreThanItsCap() {
        let model = Model(.init(capacity: 8, maxPerTenant: 3))
        model.add(tenant: "a", files: 100, concurrency: 100)
        #expect(model.shares.held(by: "a") == 3)
        #expect(model.shares.heldCount == 3, "the other slots stay free rather than go over the cap")
        let other = model.add(tenant: "b", files: 100, concurrency: 100)
        #expect(model.shares.held(by: "b") == 3)
        for _ in 0..<150 {
            model.finishOldest()
            #expect(model.shares.held(by: "a") <= 3)
            #expect(model.shares.held(by: "b") <= 3)
        }
        #expect(model.started.filter { $0 == other }.count >= 75)
    }

    @Test func slotsGoBackWhenABatchNeedsFewerAndNothingLingers() {
        let model = Model(.init(capacity: 4))
        let batch = model.add(tenant: "a", files: 3, concurrency: 4)
        #expect(model.shares.heldCount == 3)
        for _ in 0..<3 { model.finish(batch) }
        #expect(model.shares.heldCount == 0)
        #expect(model.shares.pendingCount == 0)
        #expect(model.shares.waitingFiles == 0)
    }

    @Test func aTenantChangeMovesTheSlotsItHolds() {
        let shares = TransferShares(policy: .init(capacity: 4, maxPerTenant: 2))
        let claim = shares.claim {}
        #expect(shares.reconcile(claim, .init(tenant: "a", inUse: 0, wanted: 2, waiting: 0)).held == 2)
        #expect(shares.reconcile(claim, .init(tenant: "b", inUse: 2, wanted: 3, waiting: 1)).held == 2)
        #expect(shares.held(by: "a") == 0)
        #expect(shares.held(by: "b") == 2)
        #expect(shares.pendingCount == 1, "b is at its cap: the third slot waits")
        #expect(shares.leave(claim, tenant: "b").held == 0)
        #expect(shares.heldCount == 0)
        #expect(shares.pendingCount == 0)
    }

    @Test func theQueueMarkIsReportedWhenCrossedEitherWay() {
        let shares = TransferShares(policy: .init(capacity: 1), queueMark: 10)
        let claim = shares.claim {}
        #expect(!shares.reconcile(claim, .init(tenant: "a", inUse: 0, wanted: 1, waiting: 9)).queueMarkCrossed)
        #expect(shares.reconcile(claim, .init(tenant: "a", inUse: 0, wanted: 1, waiting: 10)).queueMarkCrossed)
        #expect(!shares.reconcile(claim, .init(tenant: "a", inUse: 0, wanted: 1, waiting: 12)).queueMarkCrossed)
        #expect(shares.reconcile(claim, .init(tenant: "a", inUse: 0, wanted: 1, waiting: 3)).queueMarkCrossed)
        #expect(shares.waitingFiles == 3)
    }

    /// Random arrivals and finishes over many seeds: no slot is lost or granted twice, no tenant goes over its cap,
    /// and a free slot never sits idle while a tenant under its cap has a file waiting.
    @Test(arguments: 0..<200) func invariantsHoldOverRandomSchedules(seed: Int) {
        var random = JitterRandom(seed: UInt64(seed))
        let capacity = Int.random(in: 1...6, using: &random)
        let cap = Bool.random(using: &random) ? Int.random(in: 1...capacity, using: &random) : .max
        let tenants = ["a", "b", "c"]
        let model = Model(.init(capacity: capacity, weights: ["a": Int.random(in: 1...3, using: &random)], maxPerTenant: cap))
        for _ in 0..<300 {
            let running = model.batches.indices.filter { model.batches[$0].running > 0 }
            if running.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
                model.add(tenant: tenants.randomElement(using: &random)!, files: Int.random(in: 0...5, using: &random),
                          concurrency: Int.random(in: 1...3, using: &random))
            } else {
                model.finish(running.randomElement(using: &random)!)
            }
            let held = model.batches.reduce(0) { $0 + $1.running }
            #expect(model.shares.heldCount == held)
            #expect(held <= capacity)
            var waitingUnderCap = false
            for tenant in tenants {
                let running = model.batches.filter { $0.tenant == tenant }.reduce(0) { $0 + $1.running }
                #expect(model.shares.held(by: tenant) == running)
                #expect(running <= cap)
                let startable = model.batches.contains { $0.tenant == tenant && $0.waiting > 0 && $0.running < $0.concurrency }
                if startable, running < cap { waitingUnderCap = true }
            }
            if waitingUnderCap { #expect(held == capacity, "a free slot sat idle while a file could start") }
            #expect(model.shares.waitingFiles == model.batches.reduce(0) { $0 + $1.waiting })
            for load in model.shares.tenantLoads {
                #expect(load.waiting == model.batches.filter { $0.tenant == load.tenant }.reduce(0) { $0 + $1.waiting })
                #expect(load.held == model.shares.held(by: load.tenant))
            }
        }
        // Everything done: no tenant is left behind in the books.
        while let index = model.batches.indices.first(where: { model.batches[$0].running > 0 }) { model.finish(index) }
        if model.batches.allSatisfy({ $0.waiting == 0 }) { #expect(model.shares.tenantLoads.isEmpty) }
    }
}
