/// Tuning for ``KafkaConsumer`` beyond librdkafka's own properties.
public struct KafkaConsumerOptions: Sendable {
    /// How often finished watermarks are committed in the background; `nil` commits only on ``KafkaConsumer/commit()``,
    /// on revoke and on close.
    public var commitInterval: Duration?
    /// How long a revoke waits for the revoke hook before committing and releasing the partitions anyway.
    public var revokeTimeout: Duration
    /// Records buffered between the poll thread and the reader above which the poll thread stops taking records;
    /// it takes them again at half.
    public var maxBufferedRecords: Int
    /// How long the buffer may stay full before fetching is paused. Until then the poll thread only stops taking
    /// records (librdkafka keeps prefetching within its own queue limits): pausing makes librdkafka drop what it
    /// prefetched and fetch it again on resume, which costs far more than a reader that is briefly behind.
    public var throttlePauseDelay: Duration
    /// The most records taken from librdkafka per poll-thread round (one hand-over to Swift per round).
    public var pollBatchSize: Int
    /// How long one poll waits when there is nothing to read; commands wake it earlier.
    public var pollTimeout: Duration

    /// Defaults suited to a worker: commit every second, wait up to 10 s on revoke, buffer up to 10,000 records,
    /// pause fetching after the buffer has been full for a second.
    public init(commitInterval: Duration? = .seconds(1), revokeTimeout: Duration = .seconds(10),
                maxBufferedRecords: Int = 10_000, throttlePauseDelay: Duration = .seconds(1), pollBatchSize: Int = 1_000,
                pollTimeout: Duration = .milliseconds(100)) {
        self.commitInterval = commitInterval
        self.revokeTimeout = revokeTimeout
        self.maxBufferedRecords = max(maxBufferedRecords, 2)
        self.throttlePauseDelay = throttlePauseDelay
        self.pollBatchSize = max(pollBatchSize, 1)
        self.pollTimeout = pollTimeout
    }
}
