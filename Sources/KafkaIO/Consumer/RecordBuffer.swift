import Dispatch
import FIFOQueueModule
import Synchronization

/// The bounded hand-over between the consumer's poll thread and the task reading records.
///
/// The poll thread pushes whole batches (one lock per batch); the reader takes one record or a batch at a time.
/// When the buffer reaches its high mark it reports itself throttled and the poll thread stops taking records (and,
/// if that lasts, pauses fetching); the reader's first take at or below the low mark calls `onDrained` and ends
/// `waitForDrain`, so the poll thread carries on at once.
final class RecordBuffer: Sendable {
    private enum Waiter {
        case one(CheckedContinuation<KafkaRecord?, Never>)
        case batch(Int, CheckedContinuation<[KafkaRecord]?, Never>)
    }

    private struct State {
        var records = FIFOQueue<KafkaRecord>()
        var waiter: Waiter?
        var isFinished = false
        var isThrottled = false

        var count: Int { records.count }

        /// Removes up to `maximum` records from the front.
        mutating func take(_ maximum: Int) -> [KafkaRecord] {
            records.popFirst(maximum)
        }
    }

    private let state = Mutex(State())
    private let highMark: Int
    private let lowMark: Int
    private let onDrained: @Sendable () -> Void
    /// Signalled when the buffer drains (or `interruptWait` is called) to end the poll thread's `waitForDrain`.
    private let drainSignal = DispatchSemaphore(value: 0)

    /// A buffer that throttles at `highMark` records and calls `onDrained` when it falls back to half of that.
    init(highMark: Int, onDrained: @escaping @Sendable () -> Void) {
        self.highMark = highMark
        self.lowMark = highMark / 2
        self.onDrained = onDrained
    }

    /// Whether the poll thread should keep fetching paused because the reader is behind.
    var isThrottled: Bool { state.withLock { $0.isThrottled } }

    /// How many records wait for the reader.
    var count: Int { state.withLock { $0.count } }

    /// Appends a batch (in delivery order) and hands records to a waiting reader.
    func push(_ batch: [KafkaRecord]) {
        guard !batch.isEmpty else { return }
        let resume = state.withLock { state -> (() -> Void)? in
            guard !state.isFinished else { return nil }
            state.records.append(contentsOf: batch)
            if state.count >= highMark { state.isThrottled = true }
            return Self.serveWaiter(&state)
        }
        resume?()
    }

    /// Drops the buffered records of `partitions` (they were revoked; their new owner reads them again).
    func purge(_ partitions: Set<TopicPartition>) {
        state.withLock { state in
            guard state.count > 0 else { return }
            state.records.removeAll { partitions.contains($0.topicPartition) }
        }
    }

    /// Ends the sequence: the reader gets what is buffered, then `nil`.
    func finish() {
        let resume = state.withLock { state -> (() -> Void)? in
            state.isFinished = true
            return Self.serveWaiter(&state)
        }
        resume?()
    }

    /// Takes the next record, waiting if none is buffered; `nil` once finished and drained or when cancelled.
    func next() async -> KafkaRecord? {
        if let ready = takeNow(1) { return ready.first }
        let record = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<KafkaRecord?, Never>) in
                let ready = state.withLock { state -> (KafkaRecord?, Bool)? in
                    if state.count > 0 { return (state.take(1).first, true) }
                    if state.isFinished || Task.isCancelled { return (nil, false) }
                    state.waiter = .one(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready.0) }
            }
        } onCancel: {
            cancelWaiter()
        }
        checkDrained()
        return record
    }

    /// Takes up to `maximum` records, waiting if none is buffered; `nil` once finished and drained or cancelled.
    func nextBatch(maximum: Int) async -> [KafkaRecord]? {
        if let ready = takeNow(max(maximum, 1)) { return ready }
        let batch = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[KafkaRecord]?, Never>) in
                let ready = state.withLock { state -> [KafkaRecord]?? in
                    if state.count > 0 { return .some(state.take(max(maximum, 1))) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = .batch(max(maximum, 1), continuation)
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancelWaiter()
        }
        checkDrained()
        return batch
    }

    private func takeNow(_ maximum: Int) -> [KafkaRecord]? {
        let taken = state.withLock { state -> [KafkaRecord]? in
            state.count > 0 ? state.take(maximum) : nil
        }
        if taken != nil { checkDrained() }
        return taken
    }

    private func checkDrained() {
        let drained = state.withLock { state -> Bool in
            guard state.isThrottled, state.count <= lowMark else { return false }
            state.isThrottled = false
            return true
        }
        if drained {
            drainSignal.signal()
            onDrained()
        }
    }

    /// Blocks the calling (poll) thread until the buffer drains to its low mark, `interruptWait` is called, or
    /// `timeout` passes. A signal given while nobody waited only makes the next wait return at once.
    func waitForDrain(upTo timeout: Duration) {
        _ = drainSignal.wait(timeout: .now() + .milliseconds(Int(timeout.clampedMilliseconds)))
    }

    /// Ends a `waitForDrain` early, so the poll thread sees new commands.
    func interruptWait() {
        drainSignal.signal()
    }

    private func cancelWaiter() {
        let waiter = state.withLock { state -> Waiter? in
            defer { state.waiter = nil }
            return state.waiter
        }
        switch waiter {
        case .one(let continuation): continuation.resume(returning: nil)
        case .batch(_, let continuation): continuation.resume(returning: nil)
        case nil: break
        }
    }

    /// Satisfies the waiting reader from the buffer (or with `nil` when finished); the returned closure resumes
    /// it outside the lock.
    private static func serveWaiter(_ state: inout State) -> (() -> Void)? {
        guard let waiter = state.waiter else { return nil }
        switch waiter {
        case .one(let continuation):
            if state.count > 0 {
                state.waiter = nil
                let record = state.take(1).first
                return { continuation.resume(returning: record) }
            }
            if state.isFinished {
                state.waiter = nil
                return { continuation.resume(returning: nil) }
            }
        case .batch(let maximum, let continuation):
            if state.count > 0 {
                state.waiter = nil
                let batch = state.take(maximum)
                return { continuation.resume(returning: batch) }
            }
            if state.isFinished {
                state.waiter = nil
                return { continuation.resume(returning: nil) }
            }
        }
        return nil
    }
}
