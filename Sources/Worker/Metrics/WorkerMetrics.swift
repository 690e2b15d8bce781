import UploadEngine

/// The worker's metrics, by name, so every writer and the tests agree on them.
public struct WorkerMetrics: Sendable {
    public let registry: MetricsRegistry
    /// The series counted for every job, file and message, resolved once (see ``HotCounters``).
    private let hot: HotCounters

    public static let jobs = "attache_jobs_total"
    public static let files = "attache_files_total"
    public static let bytes = "attache_uploaded_bytes_total"
    public static let uploadDuration = "attache_upload_duration_seconds"
    public static let inFlightBatches = "attache_inflight_batches"
    public static let inFlightTransfers = "attache_inflight_transfers"
    public static let consumerLag = "attache_consumer_lag"
    public static let deadLetters = "attache_dlq_records_total"
    public static let messages = "attache_messages_total"
    public static let deadLetterFailures = "attache_dlq_failures_total"
    public static let changelogRecordsRestored = "attache_changelog_records_restored_total"
    public static let cachedBatches = "attache_cached_batches"

    /// The label values each family takes (`docs/contract.md`, "Metrics stay bounded"); anything else is `other`.
    public enum LabelValues {
        /// Record kinds, and `invalid` for a record that went to the dead-letter topic.
        public static let jobKinds: Set<String> = ["upload", "retry", "remove", "clear", "send", "configure", "invalid"]
        public static let jobOutcomes: Set<String> = ["accepted", "rekeyed", "dead-lettered"]
        public static let fileOutcomes: Set<String> = ["uploaded", "rejected", "retrying", "failed", "removed"]
        /// The error codes the contract names; a code a presign service invented counts as `other`.
        public static let errorCodes: Set<String> = Set(UploadErrorCode.contractCodes.map(\.rawValue))
        public static let messageOutcomes: Set<String> = ["sent", "retrying", "failed"]
        public static let restoreOutcomes: Set<String> = ["restored", "failed"]
        /// What the local batch store was doing when it failed (``StoreOperation``).
        public static let storeOperations: Set<String> = Set(StoreOperation.allCases.map(\.rawValue))
        /// Partition numbers of the jobs topic; far more than any topic has.
        public static let partitions = LabelDomain.numbers(below: 100_000)
    }

    public init(registry: MetricsRegistry = MetricsRegistry()) {
        self.registry = registry
        registry.declare(Self.jobs, .counter, help: "Job and control records taken in, by kind and outcome.",
                         labels: ["kind": .words(LabelValues.jobKinds), "outcome": .words(LabelValues.jobOutcomes)])
        registry.declare(Self.files, .counter, help: "Files that reached an outcome, by outcome and error code.",
                         labels: ["outcome": .words(LabelValues.fileOutcomes), "code": .words(LabelValues.errorCodes)])
        registry.declare(Self.bytes, .counter, help: "Bytes of files uploaded.")
        registry.declare(Self.uploadDuration, .histogram, help: "Time from the start of an upload to its success.",
                         buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300])
        registry.declare(Self.inFlightBatches, .gauge, help: "Batches with files or sends under way.")
        registry.declare(Self.inFlightTransfers, .gauge, help: "Files holding a transfer slot or waiting for one (worker.maxTransfers slots; the worker.maxQueuedFiles mark counts the waiting).")
        registry.declare(Self.consumerLag, .gauge, help: "Records behind the end of the jobs topic, summed over owned partitions.")
        registry.declare(Self.deadLetters, .counter, help: "Invalid records sent to the dead-letter topic.")
        registry.declare(Self.messages, .counter, help: "Messages sent to the chat API, by outcome.",
                         labels: ["outcome": .words(LabelValues.messageOutcomes)])
        registry.declare(Self.deadLetterFailures, .counter,
                         help: "Invalid records the dead-letter topic refused after every attempt (committed all the same).")
        registry.declare(Self.changelogRecordsRestored, .counter,
                         help: "Batch changelog records read while restoring assigned partitions.")
        registry.declare(Self.cachedBatches, .gauge, help: "Batches held in memory (in flight, and idle ones kept for reuse).")
        Self.declareRecovery(in: registry)
        hot = HotCounters(registry)
    }

    /// Counts a record taken in: `kind` a record kind (or `invalid`), `outcome` one of ``LabelValues/jobOutcomes``.
    public func countJob(kind: String, outcome: String) {
        hot.jobs.increment(outcome, kind)
    }

    /// Counts what an engine event says about files and bytes.
    public func record(_ event: UploadEvent) {
        switch event.kind {
        case .uploaded(let attachment):
            hot.uploaded.increment()
            hot.bytes.increment(by: Double(attachment.size))
        case .rejected(let error):
            hot.files.increment("rejected", error.code.rawValue)
        case .failed(let error, _, let willRetry):
            hot.files.increment(willRetry ? "retrying" : "failed", error.code.rawValue)
        case .removed:
            hot.removed.increment()
        case .messageSent:
            hot.messagesSent.increment()
        case .messageFailed(_, _, _, let willRetry):
            (willRetry ? hot.messagesRetrying : hot.messagesFailed).increment()
        case .progress, .completed:
            break
        }
    }

    /// Counts a snapshot or tombstone the changelog acknowledged.
    func countSnapshotDelivered() {
        hot.snapshotsDelivered.increment()
    }
}

/// The series counted for every job, file and message, as ``MetricsRegistry/Counter`` handles: an update through
/// `increment(_:labels:)` bounded and looked up its labels, some 4,000 instructions, several times a job. Each
/// series still appears only once counted.
private struct HotCounters: Sendable {
    /// By outcome, then record kind.
    let jobs: CounterTable
    /// Files rejected, retrying or failed: by outcome, then error code.
    let files: CounterTable
    let uploaded, removed, bytes, snapshotsDelivered: MetricsRegistry.Counter
    /// Messages by outcome.
    let messagesSent, messagesRetrying, messagesFailed: MetricsRegistry.Counter

    init(_ registry: MetricsRegistry) {
        typealias Values = WorkerMetrics.LabelValues
        jobs = CounterTable(registry, WorkerMetrics.jobs, ("outcome", Values.jobOutcomes), ("kind", Values.jobKinds))
        files = CounterTable(registry, WorkerMetrics.files, ("outcome", ["rejected", "retrying", "failed"]),
                             ("code", Values.errorCodes))
        uploaded = registry.counter(WorkerMetrics.files, labels: ["outcome": "uploaded"])
        removed = registry.counter(WorkerMetrics.files, labels: ["outcome": "removed"])
        bytes = registry.counter(WorkerMetrics.bytes)
        snapshotsDelivered = registry.counter(WorkerMetrics.snapshotsDelivered)
        messagesSent = registry.counter(WorkerMetrics.messages, labels: ["outcome": "sent"])
        messagesRetrying = registry.counter(WorkerMetrics.messages, labels: ["outcome": "retrying"])
        messagesFailed = registry.counter(WorkerMetrics.messages, labels: ["outcome": "failed"])
    }
}

/// The counters of one family by two labels, one for each pair of their values; a pair outside them is counted
/// through the registry, which bounds it (`other`).
private struct CounterTable: Sendable {
    private let registry: MetricsRegistry
    private let family: String
    private let labels: (first: String, second: String)
    private let counters: [String: [String: MetricsRegistry.Counter]]

    init(_ registry: MetricsRegistry, _ family: String, _ first: (label: String, values: Set<String>),
         _ second: (label: String, values: Set<String>)) {
        self.registry = registry
        self.family = family
        labels = (first.label, second.label)
        counters = Dictionary(uniqueKeysWithValues: first.values.map { one in
            (one, Dictionary(uniqueKeysWithValues: second.values.map { two in
                (two, registry.counter(family, labels: [first.label: one, second.label: two]))
            }))
        })
    }

    func increment(_ first: String, _ second: String) {
        guard let counter = counters[first]?[second] else {
            return registry.increment(family, labels: [labels.first: first, labels.second: second])
        }
        counter.increment()
    }
}
