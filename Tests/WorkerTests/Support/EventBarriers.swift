import Synchronization
@testable import Worker

/// What a store that refuses writes throws.
struct StoreRefusal: Error {}

/// The publisher's barrier ("every event published so far was delivered", or one was lost), let through or held by a
/// test.
final class EventBarriers: Sendable {
    /// Once an event was lost, every later barrier is told so too, as the publisher's are.
    private let state = Mutex<(holding: Bool, lost: Bool, waiting: [@Sendable (EventsOutcome) -> Void])>((false, false, []))

    func hold() { state.withLock { $0.holding = true } }

    var isHolding: Bool { state.withLock { $0.holding } }

    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func barrier(_ action: @escaping @Sendable (EventsOutcome) -> Void) {
        let now = state.withLock { state -> EventsOutcome? in
            guard state.holding else { return state.lost ? .lost : .delivered }
            state.waiting.append(action)
            return nil
        }
        if let now { action(now) }
    }

    /// Runs the `index`th barrier held (each once), telling it `outcome`.
    func fire(_ index: Int, _ outcome: EventsOutcome = .delivered) {
        state.withLock { $0.waiting[index] }(outcome)
    }

    /// Tells every barrier held, in order, what became of its events, and holds no more.
    func release(_ outcome: EventsOutcome = .delivered) {
        let waiting = state.withLock { state in
            state.holding = false
            if outcome == .lost { state.lost = true }
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0(outcome) }
    }
}
