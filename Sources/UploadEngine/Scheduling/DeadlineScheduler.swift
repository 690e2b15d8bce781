import Foundation
import Synchronization

/// One timer for many batches: calls each scheduled callback once its deadline has come, with one task asleep on
/// the clock for the earliest deadline instead of one sleeping task per batch.
///
/// A worker's batches share one scheduler. Almost every deadline a batch sets is a stall deadline 30 s out, later
/// than the one already armed, so scheduling it costs a heap insertion under a lock: no task, no timer registration,
/// no thread woken. A task is started only when a deadline earlier than the armed one arrives (or none is armed).
/// Cancelling forgets the ticket; its heap entry is skipped when it surfaces, and the heap is compacted when such
/// entries outnumber the live ones.
///
/// Callbacks run one after another on the scheduler's task, outside its lock, so a callback may schedule or cancel.
/// They must be quick and must not block (a batch runner's `tick` qualifies).
public final class DeadlineScheduler: Sendable {
    /// Identifies one scheduled callback, for cancelling it.
    public struct Ticket: Hashable, Sendable {
        let rawValue: UInt64
    }

    /// What a deadline calls; receives its own ticket so the owner can tell a current timer from a replaced one.
    public typealias Callback = @Sendable (Ticket) -> Void

    private struct Sleeper {
        var deadline: Date
        var generation: UInt64
        var task: Task<Void, Never>
    }

    private struct State {
        var queue = DeadlineQueue()
        var pending: [Ticket: Callback] = [:]
        var nextTicket: UInt64 = 0
        var sleeper: Sleeper?
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let clock: any EngineClock

    /// A scheduler sleeping on `clock`.
    public init(clock: any EngineClock) {
        self.clock = clock
    }

    /// Callbacks waiting for their deadline.
    public var scheduledCount: Int { state.withLock { $0.pending.count } }

    /// Sleeping tasks started so far.
    var armingCount: UInt64 { state.withLock { $0.generation } }

    /// Heap entries, cancelled ones included: bounded by about twice the live ones.
    var queuedEntryCount: Int { state.withLock { $0.queue.count } }

    /// Calls `callback` at `deadline` (soon, if it has passed) unless the returned ticket is cancelled first.
    @discardableResult
    public func schedule(at deadline: Date, _ callback: @escaping Callback) -> Ticket {
        state.withLock { state in
            state.nextTicket += 1
            let ticket = Ticket(rawValue: state.nextTicket)
            state.pending[ticket] = callback
            state.queue.insert(DeadlineQueue.Entry(deadline: deadline, ticket: ticket))
            if let sleeper = state.sleeper, sleeper.deadline <= deadline { return ticket }
            state.sleeper?.task.cancel()
            arm(for: deadline, in: &state)
            return ticket
        }
    }

    /// Forgets a ticket: its callback will not be called. Cancelling a ticket that already fired does nothing.
    public func cancel(_ ticket: Ticket) {
        state.withLock { state in
            guard state.pending.removeValue(forKey: ticket) != nil else { return }
            if state.pending.isEmpty {
                state.queue = DeadlineQueue()
                state.sleeper?.task.cancel()
                state.sleeper = nil
            } else if state.queue.count > 2 * state.pending.count + 64 {
                let pending = state.pending
                state.queue.retain { pending[$0.ticket] != nil }
            }
        }
    }

    private func arm(for deadline: Date, in state: inout State) {
        state.generation += 1
        let generation = state.generation
        let task = Task { [self] in await sleepAndFire(from: deadline, generation: generation) }
        state.sleeper = Sleeper(deadline: deadline, generation: generation, task: task)
    }

    /// The armed task: sleeps to the earliest deadline, fires what is due, and goes on to the next, until nothing
    /// is left or a newer task takes over.
    private func sleepAndFire(from deadline: Date, generation: UInt64) async {
        var deadline = deadline
        while true {
            do { try await clock.sleep(until: deadline) } catch { return }
            let now = clock.now()
            let (due, next) = state.withLock { state -> ([(Ticket, Callback)], Date?) in
                guard state.sleeper?.generation == generation else { return ([], nil) }
                var due: [(Ticket, Callback)] = []
                while let first = state.queue.first {
                    guard let callback = state.pending[first.ticket] else {
                        state.queue.removeFirst()
                        continue
                    }
                    guard first.deadline <= now else { break }
                    state.queue.removeFirst()
                    state.pending.removeValue(forKey: first.ticket)
                    due.append((first.ticket, callback))
                }
                guard let first = state.queue.first else {
                    state.sleeper = nil
                    return (due, nil)
                }
                state.sleeper?.deadline = first.deadline
                return (due, first.deadline)
            }
            for (ticket, callback) in due { callback(ticket) }
            guard let next else { return }
            deadline = next
        }
    }
}
