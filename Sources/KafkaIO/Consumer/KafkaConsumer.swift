import CRdKafka

/// A consumer-group member that delivers records as an async sequence and commits contiguous watermarks.
///
/// Offsets are never committed automatically by librdkafka (`enable.auto.commit=false`,
/// `enable.auto.offset.store=false`): each partition commits the highest offset below which every delivered
/// record was passed to ``markFinished(_:)``, so records may finish in any order and an unfinished record is
/// replayed by whoever owns its partition next. Defaults: `auto.offset.reset=earliest`,
/// `partition.assignment.strategy=cooperative-sticky`.
///
/// Threading: one dedicated thread polls librdkafka, runs the rebalance callback and commits; it never stops
/// polling while the consumer is open (paused or not), so `max.poll.interval.ms` cannot expire because work is
/// slow. All methods are safe to call from any task.
public final class KafkaConsumer: Sendable {
    /// The delivered records; read from one task. Ends when the consumer closes.
    public let records: KafkaRecordSequence
    /// Assignments, revocations and errors, in the order they happened. Ends when the consumer closes.
    public let events: AsyncStream<KafkaConsumerEvent>
    let shared: ConsumerShared
    private let client: RDKafkaClient

    /// Joins `configuration.groupID` and subscribes to `topics`; the first assignment follows asynchronously
    /// (see ``events``).
    ///
    /// - Parameter onRevoke: called when partitions are taken away (`lost`: the session expired and another member
    ///   may own them already), after their buffered records were dropped
    ///   and before their watermarks are committed and they are released. Stop intake for them and abort or
    ///   finish their work, then return; the rebalance waits for it up to ``KafkaConsumerOptions/revokeTimeout``.
    ///   It must not await ``commit()`` or ``close()`` (the poll thread is busy running the rebalance).
    /// - Throws: ``KafkaError`` for a refused property, a missing group id or a failed subscription.
    public init(configuration: KafkaConfiguration, topics: [String], options: KafkaConsumerOptions = .init(),
                onRevoke: @escaping @Sendable (_ partitions: [TopicPartition], _ lost: Bool) async -> Void = { _, _ in }) throws(KafkaError) {
        let conf = try RDConfiguration(configuration, role: .consumer)
        conf.installConsumerCallbacks()
        let (events, continuation) = AsyncStream.makeStream(of: KafkaConsumerEvent.self,
                                                            bufferingPolicy: .bufferingNewest(1024))
        let waker = PollWaker()
        let shared = ConsumerShared(groupID: configuration.groupID ?? "", options: options, onRevoke: onRevoke, events: continuation, waker: waker)
        let context = RDCallbackContext(logHandler: configuration.logHandler, owner: shared)
        let client = try RDKafkaClient(consumer: true, configuration: conf, context: context)
        client.withClientPointer { _ = rd_kafka_poll_set_consumer($0) }
        guard let queue = RDQueue(consumerOf: client) else {
            throw KafkaError(.clientCreation, "the consumer has no consumer queue")
        }
        let subscription = RDTopicPartitionList(topics.map { (TopicPartition($0, RD_KAFKA_PARTITION_UA), nil) })
        let error = client.withClientPointer { handle in subscription.withListPointer { rd_kafka_subscribe(handle, $0) } }
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(error) }
        waker.install(queue)
        let loop = ConsumerPollLoop(client: client, queue: queue, shared: shared)
        DedicatedThread.start(name: "kafka-consumer") { loop.run() }
        self.shared = shared
        self.client = client
        self.records = KafkaRecordSequence(buffer: shared.buffer)
        self.events = events
    }

    deinit {
        // Leaving the group is still owed if nobody called close(); nobody waits for it.
        _ = shared.send(.close(CompletionPromise()))
    }

    /// Marks a delivered record's work done; its partition's watermark advances past every contiguous finished
    /// record. Records of partitions revoked since delivery are ignored. Cheap: no I/O, one lock.
    public func markFinished(_ record: KafkaRecord) {
        shared.state.withLock { _ = $0.ledger.finish(record.position) }
    }

    /// Whether a delivered record is still this member's to apply: its partition is owned by the same assignment
    /// that delivered it and is not being revoked. A record taken from ``records`` before a revoke and applied after
    /// it would be work done twice, by this member and the partition's next owner.
    public func owns(_ record: KafkaRecord) -> Bool {
        shared.state.withLock { $0.ledger.owns(record) }
    }

    /// Which assignment of `partition` this member holds now (the number its records carry as
    /// ``KafkaRecord/generation``); nil when it does not own the partition.
    public func assignmentGeneration(of partition: TopicPartition) -> UInt64? {
        shared.state.withLock { $0.ledger.entries[partition]?.generation }
    }

    /// Marks several records finished under one lock.
    public func markFinished(_ records: some Sequence<KafkaRecord>) {
        markFinished(records.lazy.map(\.position))
    }

    /// Marks several records finished, by their positions, under one lock.
    public func markFinished(_ records: some Sequence<RecordPosition>) {
        shared.state.withLock { state in
            for record in records { _ = state.ledger.finish(record) }
        }
    }

    /// Commits every owned partition's watermark now and returns when the broker confirmed it.
    ///
    /// Retryable refusals (e.g. `REBALANCE_IN_PROGRESS` while the group rebalances) are retried for up to
    /// `retryFor`. Watermarks are also committed every ``KafkaConsumerOptions/commitInterval``, on revoke and on
    /// close.
    ///
    /// - Throws: the last ``KafkaError`` when the commit failed for good or kept failing for `retryFor`.
    public func commit(retryFor: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + retryFor
        var attempt = 1
        while true {
            let promise = CompletionPromise<Void>()
            guard shared.send(.commit(promise)) else { throw KafkaError(.closed, "the consumer is closed") }
            let delay = CommitBackoff.delay(afterAttempt: attempt)
            do {
                return try await promise.value()
            } catch let error as KafkaError where error.isRetryable && ContinuousClock.now + delay < deadline {
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    /// Stops fetching from every assigned partition (and from partitions assigned later) until ``resume()``.
    ///
    /// The consumer keeps polling, so it stays in its group; records already buffered are still delivered.
    public func pause() {
        shared.state.withLock { $0.wantsPause = true }
        shared.waker.wake()
    }

    /// Fetches again after ``pause()``, from where delivery stopped.
    public func resume() {
        shared.state.withLock { $0.wantsPause = false }
        shared.waker.wake()
    }

    /// Whether the application asked for a pause.
    public var isPaused: Bool { shared.state.withLock { $0.wantsPause } }

    /// The consumer group generation of this member's current assignment: the generation id the group coordinator
    /// gave the join that produced it, read right after each assignment (including the empty ones of a cooperative
    /// rebalance that moved nothing to this member). `nil` before the first assignment.
    ///
    /// It only grows while the group lives, so a record written with it can be fenced: a writer whose generation is
    /// older than one already seen lost its partitions, whether it knows it or not.
    public var groupGeneration: Int32? { shared.state.withLock { $0.groupGeneration } }

    /// The partitions this consumer owns right now.
    public var assignment: [TopicPartition] { shared.state.withLock { $0.ledger.assignment } }

    /// The group's committed offsets for `partitions` as the broker has them (`rd_kafka_committed`); partitions
    /// without a committed offset are absent.
    public func committedOffsets(for partitions: [TopicPartition],
                                 timeout: Duration = .seconds(10)) async throws -> [TopicPartition: Int64] {
        let promise = CompletionPromise<[TopicPartition: Int64]>()
        guard shared.send(.committed(partitions, deadline: .now + timeout, wait: ConsumerPollLoop.firstCommittedTry, promise)) else {
            throw KafkaError(.closed, "the consumer is closed")
        }
        return try await promise.value()
    }

    /// Records fetched and waiting for the reader (at most `maxBufferedRecords` plus one poll batch).
    public var bufferedRecordCount: Int { shared.buffer.count }

    /// Records between this consumer's fetch position and the end of each owned partition, summed: how far behind
    /// it is. Uses the high watermarks librdkafka learned from recent fetches (no broker round trip), so partitions
    /// not fetched yet count as 0.
    public func lag() -> Int64 {
        let partitions = assignment
        guard !partitions.isEmpty else { return 0 }
        let list = RDTopicPartitionList(partitions.map { ($0, nil) })
        return client.withClientPointer { handle in
            _ = list.withListPointer { rd_kafka_position(handle, $0) }
            var total: Int64 = 0
            for entry in list.entries where entry.offset >= 0 {
                if let end = Self.fetchedEnd(of: entry.partition, handle), end >= entry.offset { total += end - entry.offset }
            }
            return total
        }
    }

    /// Each owned partition's committed offset and end, from what this member already knows (its commits, its
    /// deliveries, the high watermarks of recent fetches): cheap enough for every scrape, and it covers the
    /// partitions the group's coordinator would report for this member — not those nobody owns.
    public func progress() -> [PartitionProgress] {
        let committed = shared.state.withLock { $0.ledger.committedPositions }
        guard !committed.isEmpty else { return [] }
        return client.withClientPointer { handle in
            committed.map { PartitionProgress(partition: $0.0, committed: $0.1, end: Self.fetchedEnd(of: $0.0, handle)) }
        }
    }

    /// The partition's high watermark as librdkafka learned it from fetches; nil before any.
    private static func fetchedEnd(of partition: TopicPartition, _ handle: OpaquePointer) -> Int64? {
        var low: Int64 = -1
        var high: Int64 = -1
        let error = rd_kafka_get_watermark_offsets(handle, partition.topic, partition.partition, &low, &high)
        return error == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0 ? high : nil
    }

    /// Commits the watermarks, leaves the group (running the revoke hook for the remaining partitions) and ends
    /// ``records`` and ``events``. Records still buffered are dropped; they are replayed by the next owner.
    ///
    /// - Throws: the ``KafkaError`` of the final commit or of leaving the group; the consumer is closed anyway.
    public func close() async throws {
        let promise = CompletionPromise<Void>()
        guard shared.send(.close(promise)) else { return }
        try await promise.value()
    }
}
