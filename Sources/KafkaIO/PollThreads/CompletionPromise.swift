import Synchronization

/// A one-shot result handed from a librdkafka callback (or a poll thread) to the tasks awaiting it.
///
/// Fulfilment and cancellation may arrive in either order and from any thread: a result that arrives first is
/// kept and returned to every later await; an awaiting task that is cancelled first gets `CancellationError`
/// while the result still reaches the others. Fulfilling twice keeps the first result.
final class CompletionPromise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, KafkaError>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A promise with no result yet.
    init() {}

    /// Delivers the result and wakes every awaiting task.
    func fulfill(_ result: Result<Value, KafkaError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 }) }
    }

    /// Whether the result has arrived.
    var isFulfilled: Bool { state.withLock { $0.result != nil } }

    /// Waits for the result; throws the delivered `KafkaError`, or `CancellationError` if this task is
    /// cancelled before the result arrives.
    func value() async throws -> Value {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result.mapError { $0 } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
