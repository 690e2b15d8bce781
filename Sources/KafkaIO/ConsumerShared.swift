import Synchronization

/// The consumer state shared between Swift callers, the poll thread and librdkafka's callbacks.
///
/// Callers record wishes (pause, commands, finished records) under the mutex and wake the poll thread; the
/// poll thread and the callbacks it runs (rebalance, commit replies) do everything that needs the client.
final class ConsumerShared: Sendable {
    struct State: Sendable {
        var ledger = AssignmentLedger()
        var commands: [ConsumerCommand] = []
        /// What the application asked for with pause()/resume().
        var wantsPause = false
        /// Whether the current assignment is paused in librdkafka; written on the poll thread only.
        var pauseApplied = false
        var isClosed = false
        /// Waiters of commits sent to librdkafka whose reply has not arrived, by request identity.
        var commitWaiters: [ObjectIdentifier: CompletionPromise<Void>] = [:]
    }

    let state = Mutex(State())
    let buffer: RecordBuffer
    let events: AsyncStream<KafkaConsumerEvent>.Continuation
    let onRevoke: @Sendable ([TopicPartition]) async -> Void
    let options: KafkaConsumerOptions
    let waker: PollWaker

    init(options: KafkaConsumerOptions, onRevoke: @escaping @Sendable ([TopicPartition]) async -> Void,
         events: AsyncStream<KafkaConsumerEvent>.Continuation, waker: PollWaker) {
        self.options = options
        self.onRevoke = onRevoke
        self.events = events
        self.waker = waker
        self.buffer = RecordBuffer(highMark: options.maxBufferedRecords) { waker.wake() }
    }

    /// Queues a command for the poll thread; `false` if the consumer is closed.
    func send(_ command: ConsumerCommand) -> Bool {
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.commands.append(command)
            return true
        }
        if accepted { waker.wake() }
        return accepted
    }

    /// Marks the consumer closed and fails whatever still waits on it; run by the poll thread as it stops.
    func finishAll() {
        let (commands, waiters) = state.withLock { state in
            state.isClosed = true
            defer {
                state.commands = []
                state.commitWaiters = [:]
            }
            return (state.commands, Array(state.commitWaiters.values))
        }
        let closed = KafkaError(.closed, "the consumer is closed")
        for command in commands {
            switch command {
            case .commit(let promise): promise.fulfill(.failure(closed))
            case .committed(_, _, let promise): promise.fulfill(.failure(closed))
            case .close(let promise): promise.fulfill(.success(()))
            }
        }
        for waiter in waiters { waiter.fulfill(.failure(closed)) }
        buffer.finish()
        events.finish()
        waker.clear()
    }
}
