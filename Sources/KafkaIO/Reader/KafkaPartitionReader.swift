/// Reads partitions of a topic from a given offset up to their end, outside any consumer group: no membership, no
/// commits. For bringing a local copy of a changelog partition up to date, and for reading one record back.
///
/// One reader owns one librdkafka consumer handle (no `group.id`; each read starts the partition's fetch with
/// `rd_kafka_consume_start_queue`, since `rd_kafka_assign` needs a group in librdkafka 2.0.2). It serves any number
/// of reads at once, one per partition — each read fetches into a queue of its own on a thread of its own, so a
/// worker restores all the partitions it was assigned in parallel with a single reader. A second read of a partition
/// that is being read waits for the first to end.
///
/// A missing topic is not created by a real broker (the consumer never allows auto-creation); librdkafka 2.0.2's
/// mock creates it on the first request naming it, so check with ``KafkaTopicAdmin/partitionCount(of:autoCreate:timeout:)``
/// first.
public final class KafkaPartitionReader: Sendable {
    private let client: RDKafkaClient
    private let options: KafkaPartitionReaderOptions
    private let claims = PartitionClaims()

    /// Creates the reader's handle; brokers are contacted on the first read.
    ///
    /// `configuration.groupID` is ignored. librdkafka's fetch tuning for the reader (`fetch.message.max.bytes` 4 MiB,
    /// `queued.max.messages.kbytes` 16 MiB per partition being read, `fetch.wait.max.ms` 100) can be overridden with
    /// raw properties.
    ///
    /// - Throws: ``KafkaError`` for a refused property.
    public init(configuration: KafkaConfiguration, options: KafkaPartitionReaderOptions = .init()) throws(KafkaError) {
        let conf = try RDConfiguration(configuration, role: .reader)
        let context = RDCallbackContext(logHandler: configuration.logHandler, owner: nil)
        client = try RDKafkaClient(consumer: true, configuration: conf, context: context)
        self.options = options
    }

    /// Reads one partition from `offset` up to the end offset (high watermark) it has when the read begins, handing
    /// the records to `handle` in offset order, in batches of at most ``KafkaPartitionReaderOptions/maxBatchSize``.
    ///
    /// - An offset below the log start (retention moved it) starts at the log start; see
    ///   ``PartitionReadSummary/startOffset``.
    /// - An offset equal to the end offset reads nothing and returns at once (so does an empty partition).
    /// - An offset past the end offset returns ``PartitionReadOutcome/aheadOfTopic(end:)`` without reading.
    /// - Offsets missing in between (compaction) are skipped: the read ends when the next offset to read reaches the
    ///   end offset, or librdkafka reports the partition's end there — never by counting records.
    /// - Records appended after the read began are not handed over.
    ///
    /// The next batch is fetched while `handle` runs; reading pauses when ``KafkaPartitionReaderOptions/maxBufferedRecords``
    /// wait for it.
    ///
    /// - Throws: ``KafkaError`` when the watermarks cannot be read (no leader within
    ///   ``KafkaPartitionReaderOptions/requestTimeout``, an unknown partition), when fetching fails for good or stalls
    ///   for ``KafkaPartitionReaderOptions/stallTimeout``; whatever `handle` throws; `CancellationError`. The read is
    ///   stopped in each case.
    public func readToEnd(topic: String, partition: Int32, from offset: Int64,
                          handle: ([KafkaRecord]) async throws -> Void) async throws -> PartitionReadOutcome {
        let read = try await start(TopicPartition(topic, partition), .toEnd(from: offset))
        return try await read.drain(maximum: options.maxBatchSize, into: handle)
    }

    /// Reads one partition from `offset` (at least the log start, at most the end offset; nil: the end offset when the
    /// read begins), and
    /// goes on with every record appended afterwards, handing them to `handle` in offset order, until the task is
    /// cancelled or `handle` throws (both end it with that error). For following a topic live without a group: no
    /// membership, no rebalance wait, nothing committed.
    ///
    /// - Throws: ``KafkaError`` as ``readToEnd(topic:partition:from:handle:)`` does (never a stall: a followed
    ///   partition may stay quiet); whatever `handle` throws; `CancellationError`.
    public func follow(topic: String, partition: Int32, from offset: Int64?,
                       handle: ([KafkaRecord]) async throws -> Void) async throws {
        let read = try await start(TopicPartition(topic, partition), .follow(from: offset))
        _ = try await read.drain(maximum: options.maxBatchSize, into: handle)
    }

    /// The record at `offset` of one partition, or `nil` when the partition no longer holds it: below the log start,
    /// compacted away (the next record has a larger offset), or not written yet.
    ///
    /// Costs a watermark request and one fetch from `offset` (up to `fetch.message.max.bytes`, of which one record is
    /// kept): 9–19 ms against the mock cluster in a debug build, for reading inline file bytes back now and then.
    ///
    /// - Throws: ``KafkaError`` as ``readToEnd(topic:partition:from:handle:)`` does; `CancellationError`.
    public func record(topic: String, partition: Int32, offset: Int64) async throws -> KafkaRecord? {
        let read = try await start(TopicPartition(topic, partition), .single(offset))
        var found: KafkaRecord?
        _ = try await read.drain(maximum: 1) { records in
            if found == nil { found = records.first { $0.offset == offset } }
        }
        return found
    }

    /// Claims the partition and starts its read on a thread of its own, which gives the claim up when it ends.
    private func start(_ partition: TopicPartition, _ goal: PartitionReadLoop.Goal) async throws -> PartitionReadLoop {
        try await claims.claim(partition)
        let read = PartitionReadLoop(client: client, partition: partition, goal: goal, options: options)
        let claims = self.claims
        DedicatedThread.start(name: "kafka-partition-read") {
            read.run()
            claims.release(partition)
        }
        return read
    }
}
