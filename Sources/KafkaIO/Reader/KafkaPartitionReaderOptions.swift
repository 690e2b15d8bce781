/// Tuning for ``KafkaPartitionReader`` beyond librdkafka's own properties.
public struct KafkaPartitionReaderOptions: Sendable {
    /// How long asking a partition's leader for the partition's watermarks may take.
    public var requestTimeout: Duration
    /// How long a read may go without a record or the end of its partition before it fails with `_TIMED_OUT`:
    /// librdkafka retries an unreachable leader on its own, for ever.
    public var stallTimeout: Duration
    /// The most records handed to the handler in one call.
    public var maxBatchSize: Int
    /// Records read ahead of the handler, at most (plus one fetch batch); the reading thread waits above it.
    public var maxBufferedRecords: Int

    /// Defaults for restoring a local store: ask for watermarks for up to 10 s, give up on a read stalled for 30 s,
    /// hand over up to 2,000 records at a time, read up to 20,000 ahead.
    public init(requestTimeout: Duration = .seconds(10), stallTimeout: Duration = .seconds(30),
                maxBatchSize: Int = 2_000, maxBufferedRecords: Int = 20_000) {
        self.requestTimeout = requestTimeout
        self.stallTimeout = stallTimeout
        self.maxBatchSize = max(maxBatchSize, 1)
        self.maxBufferedRecords = max(maxBufferedRecords, 2)
    }
}
