import Synchronization

/// A cap on work running at once: a first-in-first-out counting semaphore whose waiters can be cancelled. The HTTP
/// client caps its transfers with one, staging its bulk copies with another, and the sources failed files hold
/// open with a third (which only ever tries).
///
/// A released slot goes straight to the longest waiter, so a steady stream of new work cannot starve it.
public final class FairSlots: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var observer: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    /// The cap this semaphore enforces.
    public let capacity: Int

    /// A cap of `capacity` (at least 1) concurrent holders.
    public init(capacity: Int) {
        precondition(capacity > 0, "the cap must be positive")
        self.capacity = capacity
        state = Mutex(State(free: capacity))
    }

    /// Requests waiting for a slot right now.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Slots held right now.
    public var heldCount: Int { state.withLock { capacity - $0.free } }

    /// Sets what to call after the work holding or waiting for a slot grew or shrank (outside the lock, on the
    /// caller's thread): for a backpressure mark that follows ``heldCount`` + ``waitingCount`` without polling.
    public func onChange(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.observer = observer }
    }

    private var observer: (@Sendable () -> Void)? { state.withLock { $0.observer } }

    /// Waits for a slot in arrival order; throws `CancellationError` (holding nothing) if the task is cancelled first.
    /// Every successful call must be balanced by one `release()`.
    public func acquire() async throws {
        // A free slot nobody waits for is taken without suspending: uncontended work costs no task switch.
        let id = state.withLock { state -> UInt64? in
            if !Task.isCancelled, state.free > 0, state.waiters.isEmpty {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else {
            observer?()
            return
        }
        defer { observer?() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Deciding under the lock that the cancel handler also takes means a cancel either finds this
                // waiter queued or happened early enough for `Task.isCancelled` to be seen here.
                let outcome: Result<Void, CancellationError>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.free > 0 {
                        state.free -= 1
                        return .success(())
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                if outcome == nil { observer?() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Takes a free slot nobody waits for, without waiting: false when there is none. A successful call must be
    /// balanced by one `release()`.
    public func tryAcquire() -> Bool {
        let taken = state.withLock { state -> Bool in
            guard state.free > 0, state.waiters.isEmpty else { return false }
            state.free -= 1
            return true
        }
        if taken { observer?() }
        return taken
    }

    /// Gives a slot back: to the longest waiter if there is one, else to the pool.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.free += 1
                precondition(state.free <= capacity, "a slot was released twice")
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
        if next == nil { observer?() }
    }

    /// Runs `work` holding a slot, waiting for one first if need be; a task cancelled while it waits does not run
    /// `work` and throws `CancellationError`.
    public func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await work()
    }
}
