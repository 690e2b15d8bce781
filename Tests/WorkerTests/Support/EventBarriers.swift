import Synchronization
@testable import Worker

/// What a store that refuses writes throws.
struct StoreRefusal: Error {}

/// The publisher's barrier ("every event published so far was delivered", or one was lost), let through or held by a
/// test.
final class EventBarriers: Sendable {
    private let state = Mutex<(holding: Bool, waiting: [@Sendable (EventsOutcome) -> Void])>((false, []))

    func hold() { state.withLock { $0.holding = true } }

    var isHolding: Bool { state.withLock { $0.holding } }

    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func barrier(_ action: @escaping @Sendable (EventsOutcome) -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.holding else { return true }
            state.waiting.append(action)
            return false
        }
        if now { action(.delivered) }
    }

    /// Runs the `index`th barrier held (each once), telling it `outcome`.
    func fire(_ index: Int, _ outcome: EventsOutcome = .delivered) {
        state.withLock { $0.waiting[index] }(outcome)
    }

    /// Tells every barrier held, in order, what became of its events, and holds no more.
    func release(_ outcome: EventsOutcome = .delivered) {
        let waiting = state.withLock { state in
            state.holding = false
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0(outcome) }
    }
}
