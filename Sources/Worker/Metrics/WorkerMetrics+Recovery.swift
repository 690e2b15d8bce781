import Foundation

/// The families operators alert on and recover with (`docs/operations.md#metrics-for-alerts-and-recovery`).
extension WorkerMetrics {
    public static let partitionCommitted = "attache_partition_committed_offset"
    public static let partitionEnd = "attache_partition_end_offset"
    public static let partitionLag = "attache_partition_lag"
    public static let restores = "attache_changelog_restores_total"
    public static let restoreDuration = "attache_changelog_restore_duration_seconds"
    public static let restoring = "attache_changelog_restoring_partitions"
    public static let snapshotsDelivered = "attache_changelog_snapshots_delivered_total"
    public static let snapshotsPending = "attache_changelog_snapshots_pending"
    public static let storeErrors = "attache_state_store_errors_total"
    public static let eventsDelivered = "attache_events_delivered_total"
    public static let eventsPending = "attache_events_pending"
    public static let healthy = "attache_worker_healthy"
    public static let ready = "attache_worker_ready"
    /// The Prometheus client libraries' name, so the usual restart queries work on Attache too.
    public static let startTime = "process_start_time_seconds"

    /// What the local batch store (`state.db`) was doing when it failed; every failure is survivable, the store
    /// being a cache of the changelog.
    public enum StoreOperation: String, Sendable, CaseIterable {
        /// Opening it at start found it unreadable: it was recreated, and partitions are rebuilt from the changelog.
        case open
        /// A stored batch could not be read back: the batch started afresh.
        case read
        /// Delivered snapshots could not be written: the next restore reads them from the changelog again.
        case write
        /// A released partition's rows could not be dropped.
        case drop
    }

    /// Declares them: commits and lag per owned partition, changelog restores and snapshots, the local store, event
    /// delivery and health.
    static func declareRecovery(in registry: MetricsRegistry) {
        let partition: [String: LabelDomain] = ["partition": LabelValues.partitions]
        registry.declare(Self.partitionCommitted, .gauge,
                         help: "The group's committed offset of an owned jobs partition (where this owner started until its first commit).",
                         labels: partition)
        registry.declare(Self.partitionEnd, .gauge,
                         help: "The end (high watermark) of an owned jobs partition, as of its latest fetch.",
                         labels: partition)
        registry.declare(Self.partitionLag, .gauge,
                         help: "Records of an owned jobs partition past its committed offset: the group's lag, held work included.",
                         labels: partition)
        registry.declare(Self.restores, .counter,
                         help: "Partition restores from the batch changelog, by outcome (a failed one is fatal).",
                         labels: ["outcome": .words(LabelValues.restoreOutcomes)])
        registry.declare(Self.restoreDuration, .histogram, help: "Time to restore one assigned partition from the batch changelog.",
                         buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300])
        registry.declare(Self.restoring, .gauge, help: "Assigned partitions whose restore from the changelog is under way (their records wait).")
        registry.declare(Self.snapshotsDelivered, .counter, help: "Batch snapshots and tombstones the changelog acknowledged.")
        registry.declare(Self.snapshotsPending, .gauge, help: "Batches with a change not yet acknowledged by the changelog (their records wait).")
        registry.declare(Self.storeErrors, .counter,
                         help: "Failures of the local batch store (state.db), by operation; the changelog stays the record.",
                         labels: ["operation": .words(LabelValues.storeOperations)])
        registry.declare(Self.eventsDelivered, .counter, help: "Events the events topic acknowledged.")
        registry.declare(Self.eventsPending, .gauge, help: "Events handed to the producer and not yet acknowledged (their records wait).")
        registry.declare(Self.healthy, .gauge, help: "1 while /healthz passes, else 0.")
        registry.declare(Self.ready, .gauge, help: "1 while /readyz passes (partitions owned), else 0.")
        registry.declare(Self.startTime, .gauge, help: "When the worker started, in seconds since the Unix epoch.")
    }

    /// Counts a failure of the local batch store.
    public func storeFailed(_ operation: StoreOperation) {
        registry.increment(Self.storeErrors, labels: ["operation": operation.rawValue])
    }
}
