import Synchronization

/// The consumer state shared between Swift callers, the poll thread and librdkafka's callbacks.
///
/// Callers record wishes (pause, commands, finished records) under the mutex and wake the poll thread; the
/// poll thread and the callbacks it runs (rebalance, commit replies) do everything that needs the client.
final class ConsumerShared: Sendable {
    /// Everything behind the mutex.
    struct State: Sendable {
        /// The owned partitions and their watermarks.
        var ledger = AssignmentLedger()
        /// Commands waiting for the poll thread.
        var commands: [ConsumerCommand] = []
        /// What the application asked for with pause()/resume().
        var wantsPause = false
        /// Whether the current assignment is paused in librdkafka; written on the poll thread only.
        var pauseApplied = false
        /// Assignment callbacks still due before the rebalance a revoke began is over. Until then the member is
        /// rejoining its group and a commit sent now carries the old generation: the broker answers it
        /// `ILLEGAL_GENERATION` once the join completes, which librdkafka takes for a lost assignment — so the
        /// periodic commit waits. A cooperative revoke is followed by an empty "assign after revoke", then the
        /// rejoin's own assignment; a lost or eager one by the rejoin's assignment alone. Poll thread only.
        var assignmentsBeforeSteady = 0
        /// When a commit was last answered `REBALANCE_IN_PROGRESS`: a rebalance this member had no revoke in (another
        /// member joining or leaving) is under way. A commit sent before it ends risks the same `ILLEGAL_GENERATION`
        /// (librdkafka 2.0.2 then rejoins and drops its assignment, librdkafka issue #4059), so the periodic commit
        /// waits for the next assignment callback, or ``rebalanceHold`` at the most. Poll thread only.
        var rebalanceSeen: ContinuousClock.Instant?

        /// The consumer group generation of the latest assignment (empty or not), read right after it was taken;
        /// `nil` before the first one. Written on the poll thread only.
        var groupGeneration: Int32?

        /// What the latest statistics said of the group's join state (``GroupJoinState``); true until they say
        /// anything, so a client whose statistics are off commits as before. Poll thread only.
        var joinSteady = true

        /// Whether the member is between a revoke and the end of its rejoin, in a rebalance a commit was told of, or
        /// rejoining as the statistics say.
        func isRejoining(at now: ContinuousClock.Instant) -> Bool {
            !joinSteady || assignmentsBeforeSteady > 0
                || rebalanceSeen.map { now - $0 < ConsumerShared.rebalanceHold } == true
        }
        /// Set when the poll thread stopped; later commands are refused.
        var isClosed = false
        /// Waiters of commits sent to librdkafka whose reply has not arrived, by request identity.
        var commitWaiters: [ObjectIdentifier: CompletionPromise<Void>] = [:]
    }

    /// The longest the periodic commit waits for a rebalance a commit was told of to end: longer than a rebalance
    /// takes, short enough that a missed assignment callback only delays commits.
    static let rebalanceHold: Duration = .seconds(30)

    /// The shared state.
    let state = Mutex(State())
    /// Records on their way to the reader.
    let buffer: RecordBuffer
    /// Feeds ``KafkaConsumer/events``.
    let events: AsyncStream<KafkaConsumerEvent>.Continuation
    /// The owner's revoke hook.
    let onRevoke: @Sendable ([TopicPartition], Bool) async -> Void
    /// Tuning.
    let options: KafkaConsumerOptions
    /// Interrupts the poll thread's wait.
    let waker: PollWaker
    /// The consumer group (`group.id`), which the group generation is read for.
    let groupID: String

    /// State for a consumer of `groupID` that is about to start.
    init(groupID: String, options: KafkaConsumerOptions, onRevoke: @escaping @Sendable ([TopicPartition], Bool) async -> Void,
         events: AsyncStream<KafkaConsumerEvent>.Continuation, waker: PollWaker) {
        self.groupID = groupID
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
        if accepted {
            waker.wake()
            buffer.interruptWait()
        }
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
            case .committed(_, _, _, let promise): promise.fulfill(.failure(closed))
            case .close(let promise): promise.fulfill(.success(()))
            }
        }
        for waiter in waiters { waiter.fulfill(.failure(closed)) }
        buffer.finish()
        events.finish()
        waker.clear()
    }
}
