import FIFOQueueModule
import Synchronization

/// The worker's transfer slots (`worker.maxTransfers`), shared across tenants (DESIGN §12 *Fair share*): granted
/// round-robin over the tenants with files waiting, `weight` grants a turn, no tenant holding more than its cap, and
/// within a tenant to its batches in the order they arrived.
///
/// A batch does not wait for a slot in a task: its runner says how many slots it could use now (``reconcile(_:)``)
/// and is woken when one is granted to it. A file therefore waits for a slot as a queued entry of its batch, holding
/// no open source, no staged bytes and no timer, and the worker can go on reading jobs while every slot is busy: the
/// scheduler has to see every tenant's waiting work to share fairly.
///
/// Thread safety: one lock, taken last — nothing is called while it is held. Wake-ups for other batches are returned
/// to the caller (``Reconciled/wakes``), which calls them once it holds no lock of its own.
public final class TransferShares: Sendable {
    public struct Policy: Sendable, Equatable {
        /// Slots in all (`worker.maxTransfers`).
        public var capacity: Int
        /// Grants a tenant receives per turn (`limits.tenantWeights`); unnamed tenants have weight 1.
        public var weights: [String: Int]
        /// Slots one tenant may hold at once (`limits.tenantMaxTransfers`).
        public var maxPerTenant: Int

        public init(capacity: Int, weights: [String: Int] = [:], maxPerTenant: Int = .max) {
            self.capacity = max(1, capacity)
            self.weights = weights
            self.maxPerTenant = max(1, maxPerTenant)
        }

        func weight(of tenant: String) -> Int { max(1, weights[tenant] ?? 1) }
    }

    /// What a batch uses and could use now.
    public struct Demand: Sendable, Equatable {
        public var tenant: String
        /// Its files in flight, one slot each.
        public var inUse: Int
        /// Slots it could fill at once: files in flight plus those it would start (at most its concurrency).
        public var wanted: Int
        /// Its files waiting to start (for the `worker.maxQueuedFiles` mark), whether or not it asks for a slot.
        public var waiting: Int

        public init(tenant: String, inUse: Int, wanted: Int, waiting: Int) {
            self.tenant = tenant
            self.inUse = max(0, inUse)
            self.wanted = max(self.inUse, wanted)
            self.waiting = max(0, waiting)
        }
    }

    /// A batch's standing with the scheduler: its place in arrival order and how to wake it.
    public struct Claim: Sendable {
        let claimant: Claimant
    }

    /// The answer to a ``reconcile(_:_:)``.
    public struct Reconciled {
        /// Slots the batch holds now: those it held, less what it gave back, plus any granted at once.
        public var held: Int
        /// Other batches granted a slot by what this batch gave back: call each once no lock is held.
        public var wakes: [@Sendable () -> Void] = []
        /// The files waiting across the worker crossed the queue mark, one way or the other.
        public var queueMarkCrossed = false
    }

    /// A batch's counts, kept by its claim rather than in a table: a reconcile runs for every file that starts or
    /// ends, and looking batches and tenants up by key and writing them back was most of its cost (a dictionary's
    /// in-place update allocates, and an account's queue copied on each write-back).
    ///
    /// Its fields are read and written only under the shares' lock.
    final class Claimant: @unchecked Sendable {
        /// Arrival order: claims made earlier rank first within their tenant.
        let id: UInt64
        let wake: @Sendable () -> Void
        var tenant: String?
        var held = 0
        /// Granted since the batch last heard its count: held for it, though it has not started a file with them.
        var unseen = 0
        var pending = 0
        var waiting = 0
        /// Granted a slot in the reconcile under way (so that it is woken once).
        var woken = false

        init(id: UInt64, wake: @escaping @Sendable () -> Void) {
            self.id = id
            self.wake = wake
        }
    }

    /// One tenant's counts; a class for the reason ``Claimant`` is one. Read and written only under the lock.
    private final class Account {
        var held = 0
        /// Files of the tenant's batches waiting to start.
        var waiting = 0
        /// Claims with slots pending, in arrival order: new claims join at the back and grants take from the front,
        /// both O(1); a batch asking again joins at its own place.
        var queue = FIFOQueue<Claimant>()
        /// Grants in the current turn.
        var turn = 0

        var isUnused: Bool { held == 0 && waiting == 0 && queue.isEmpty }
    }

    private struct State {
        var free: Int
        var nextID: UInt64 = 0
        var accounts: [String: Account] = [:]
        /// Tenants with slots pending, in turn order; `cursor` is whose turn it is.
        var ring: [String] = []
        var cursor = 0
        var waitingFiles = 0
        var pendingSlots = 0
        var queueMarkObserver: (@Sendable () -> Void)?

        /// The tenant's account, opened if it has none.
        mutating func account(_ tenant: String) -> Account {
            if let account = accounts[tenant] { return account }
            let account = Account()
            accounts[tenant] = account
            return account
        }
    }

    private let state: Mutex<State>
    public let policy: Policy
    /// `worker.maxQueuedFiles`: ``Reconciled/queueMarkCrossed`` reports crossings of it.
    public let queueMark: Int

    public init(policy: Policy, queueMark: Int = .max) {
        self.policy = policy
        self.queueMark = queueMark
        state = Mutex(State(free: policy.capacity))
    }

    /// A claim for a new batch: it ranks after every batch that claimed before it, within its tenant.
    public func claim(wake: @escaping @Sendable () -> Void) -> Claim {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return Claim(claimant: Claimant(id: id, wake: wake))
    }

    /// Sets what to call when the files waiting across the worker cross ``queueMark`` (intake's backpressure).
    public func onQueueMarkCrossed(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.queueMarkObserver = observer }
    }

    /// Calls the queue mark's observer: for a batch whose ``Reconciled/queueMarkCrossed`` said so, once it holds
    /// no lock.
    public func tellQueueMarkCrossed() {
        state.withLock { $0.queueMarkObserver }?()
    }

    /// Files waiting to start across the worker.
    public var waitingFiles: Int { state.withLock { $0.waitingFiles } }

    /// Slots held right now.
    public var heldCount: Int { state.withLock { policy.capacity - $0.free } }

    /// Slots asked for and not granted yet.
    public var pendingCount: Int { state.withLock { $0.pendingSlots } }

    /// One tenant's slots and waiting files.
    public struct TenantLoad: Sendable, Equatable {
        public var tenant: String
        public var held: Int
        public var waiting: Int

        public init(tenant: String, held: Int, waiting: Int) {
            self.tenant = tenant
            self.held = held
            self.waiting = waiting
        }
    }

    /// Every tenant with slots held or files waiting, right now.
    public var tenantLoads: [TenantLoad] {
        state.withLock { state in
            state.accounts.map { TenantLoad(tenant: $0.key, held: $0.value.held, waiting: $0.value.waiting) }
        }
    }

    /// Slots held by one tenant right now.
    public func held(by tenant: String) -> Int { state.withLock { $0.accounts[tenant]?.held ?? 0 } }

    /// Brings a batch's slots to what it uses and can use: a slot it no longer uses goes back to the pool — even if
    /// it has more files waiting, they wait for their turn like everyone's —, it asks for what it could start, and
    /// what is free is granted in turn. A batch that wants nothing and waits for nothing is forgotten.
    ///
    /// The answer's ``Reconciled/held`` is what the batch may fill; it should start files up to it and reconcile
    /// again, so that slots granted and not used are given back.
    public func reconcile(_ claim: Claim, _ demand: Demand) -> Reconciled {
        state.withLock { state in
            let wasOver = state.waitingFiles >= queueMark
            let claimant = claim.claimant
            if let tenant = claimant.tenant, tenant != demand.tenant {
                setPending(0, of: claimant, in: &state)
                let old = state.account(tenant)
                old.held -= claimant.held
                old.waiting -= claimant.waiting
                dropAccountIfUnused(tenant, in: &state)
                let new = state.account(demand.tenant)
                new.held += claimant.held
                new.waiting += claimant.waiting
            }
            claimant.tenant = demand.tenant
            let account = state.account(demand.tenant)
            state.waitingFiles += demand.waiting - claimant.waiting
            account.waiting += demand.waiting - claimant.waiting
            claimant.waiting = demand.waiting
            // What the batch knew it held and no longer uses, then what it was granted unseen beyond what it wants.
            let stopped = max(0, claimant.held - claimant.unseen - demand.inUse)
            let freed = stopped + max(0, min(claimant.unseen, claimant.held - stopped - demand.wanted))
            if freed > 0 {
                claimant.held -= freed
                account.held -= freed
                state.free += freed
            }
            claimant.unseen = 0
            setPending(demand.wanted - claimant.held, of: claimant, in: &state)
            var woken: [Claimant] = []
            grant(in: &state, woken: &woken)
            claimant.unseen = 0
            dropAccountIfUnused(demand.tenant, in: &state)
            var answer = Reconciled(held: claimant.held)
            for other in woken {
                other.woken = false
                if other !== claimant { answer.wakes.append(other.wake) }
            }
            answer.queueMarkCrossed = wasOver != (state.waitingFiles >= queueMark)
            return answer
        }
    }

    /// Gives back everything a batch holds or asked for (a batch handed over or dropped).
    public func leave(_ claim: Claim, tenant: String) -> Reconciled {
        reconcile(claim, Demand(tenant: tenant, inUse: 0, wanted: 0, waiting: 0))
    }

    // MARK: - Under the lock

    private func setPending(_ count: Int, of claimant: Claimant, in state: inout State) {
        let count = max(0, count)
        guard count != claimant.pending, let tenant = claimant.tenant else { return }
        state.pendingSlots += count - claimant.pending
        let account = state.account(tenant)
        if claimant.pending == 0 {
            // Claim ids grow with arrival: a binary search keeps the queue in arrival order (a new claim: the back).
            var low = 0, high = account.queue.count
            while low < high {
                let middle = (low + high) / 2
                if account.queue[middle].id < claimant.id { low = middle + 1 } else { high = middle }
            }
            account.queue.insert(claimant, at: low)
            if account.queue.count == 1 { joinRing(tenant, in: &state) }
        } else if count == 0, let position = account.queue.firstPosition(where: { $0 === claimant }) {
            account.queue.remove(at: position)
            if account.queue.isEmpty {
                account.turn = 0
                leaveRing(tenant, in: &state)
            }
        }
        claimant.pending = count
    }

    /// A tenant with newly waiting work takes the next turn: its first file waits for one free slot at most, and
    /// the tenant whose turn it was goes on right after.
    private func joinRing(_ tenant: String, in state: inout State) {
        state.ring.insert(tenant, at: state.cursor)
    }

    private func leaveRing(_ tenant: String, in state: inout State) {
        guard let index = state.ring.firstIndex(of: tenant) else { return }
        state.ring.remove(at: index)
        if index < state.cursor { state.cursor -= 1 }
        if state.cursor >= state.ring.count { state.cursor = 0 }
    }

    private func dropAccountIfUnused(_ tenant: String, in state: inout State) {
        if let account = state.accounts[tenant], account.isUnused { state.accounts[tenant] = nil }
    }

    /// Grants free slots, one at a time, to the tenant whose turn it is; a tenant at its cap is passed over (its
    /// turn ends) until it gives a slot back.
    private func grant(in state: inout State, woken: inout [Claimant]) {
        while state.free > 0, !state.ring.isEmpty {
            var passed = 0
            while passed < state.ring.count, let account = state.accounts[state.ring[state.cursor]], account.held >= policy.maxPerTenant {
                account.turn = 0
                state.cursor = (state.cursor + 1) % state.ring.count
                passed += 1
            }
            guard passed < state.ring.count else { return }
            let tenant = state.ring[state.cursor]
            guard let account = state.accounts[tenant], let claimant = account.queue.first else {
                // Cannot happen: a tenant is in the ring only while its queue holds claims.
                leaveRing(tenant, in: &state)
                continue
            }
            claimant.held += 1
            claimant.unseen += 1
            claimant.pending -= 1
            account.held += 1
            account.turn += 1
            state.free -= 1
            state.pendingSlots -= 1
            if !claimant.woken {
                claimant.woken = true
                woken.append(claimant)
            }
            if claimant.pending == 0 { account.queue.dropFirst(1) }
            let turnOver = account.turn >= policy.weight(of: tenant)
            if turnOver || account.queue.isEmpty { account.turn = 0 }
            if account.queue.isEmpty {
                leaveRing(tenant, in: &state)
            } else if turnOver {
                state.cursor = (state.cursor + 1) % state.ring.count
            }
        }
    }
}
