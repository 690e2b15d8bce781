import Synchronization
import Testing

/// What a test double records, in order, and the one way a test waits for those records to satisfy a condition —
/// resumed by the record that satisfies it, never by polling.
public final class RecordLog<Element: Sendable>: Sendable {
    private struct Waiter {
        let predicate: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var elements: [Element] { state.withLock { $0.elements } }

    public func append(_ element: Element) {
        let ready = state.withLock { state in
            state.elements.append(element)
            let elements = state.elements
            let ready = state.waiters.filter { $0.predicate(elements) }
            state.waiters.removeAll { $0.predicate(elements) }
            return ready
        }
        ready.forEach { $0.continuation.resume() }
    }

    /// Returns once the records satisfy `predicate` — or after `timeout`, with an issue naming `what` recorded
    /// (``waitFor(_:timeout:sourceLocation:_:)``).
    public func wait(_ what: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
                     until predicate: @escaping @Sendable ([Element]) -> Bool) async {
        await waitFor(what, timeout: timeout, sourceLocation: sourceLocation) { await self.reach(predicate) }
    }

    private func reach(_ predicate: @escaping @Sendable ([Element]) -> Bool) async {
        await withCheckedContinuation { continuation in
            let satisfied = state.withLock { state in
                if predicate(state.elements) { return true }
                state.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }
}
