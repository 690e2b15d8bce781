import Synchronization
import Testing
import UploadEngine

/// Collects a batch's events and lets a test wait for the ones it expects, without sleeping.
public final class EventRecorder: Sendable {
    private struct Waiter {
        let predicate: @Sendable ([UploadEvent]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var events: [UploadEvent] = []
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// The observer to hand to a `BatchRunner`.
    public var observer: UploadObserver {
        { [self] event in record(event) }
    }

    public var events: [UploadEvent] { state.withLock { $0.events } }

    public func record(_ event: UploadEvent) {
        let ready = state.withLock { state in
            state.events.append(event)
            let events = state.events
            let (ready, waiting) = state.waiters.reduce(into: ([Waiter](), [Waiter]())) { split, waiter in
                if waiter.predicate(events) { split.0.append(waiter) } else { split.1.append(waiter) }
            }
            state.waiters = waiting
            return ready
        }
        ready.forEach { $0.continuation.resume() }
    }

    /// Returns once the recorded events satisfy `predicate` — or after `timeout`, with an issue recorded
    /// (``waitFor(_:timeout:sourceLocation:_:)``).
    public func wait(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
                     until predicate: @escaping @Sendable ([UploadEvent]) -> Bool) async {
        await waitFor("the batch's events to satisfy the condition", timeout: timeout, sourceLocation: sourceLocation) {
            await self.reach(predicate)
        }
    }

    private func reach(_ predicate: @escaping @Sendable ([UploadEvent]) -> Bool) async {
        await withCheckedContinuation { continuation in
            let satisfied = state.withLock { state in
                if predicate(state.events) { return true }
                state.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Returns once `count` `completed` events have been recorded.
    public func waitForCompletions(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(sourceLocation: sourceLocation) { events in events.filter(\.isCompletion).count >= count }
    }
}
