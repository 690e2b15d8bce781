import KafkaIO

/// What the gauges show at one scrape, read from the worker's parts just before it is rendered.
struct ScrapeReading: Sendable {
    /// Records between the fetch position and the end of each owned partition, summed.
    var consumerLag: Int64 = 0
    /// The owned partitions' committed offsets and ends.
    var partitions: [PartitionProgress] = []
    /// Batches with work under way (the `worker.maxInFlightBatches` mark).
    var inFlightBatches = 0
    /// HTTP transfers running or waiting for a slot (the `worker.maxTransfers` mark).
    var inFlightTransfers = 0
    /// Batches held in memory, in flight or idle.
    var cachedBatches = 0
    /// Events acknowledged since the start (a counter, kept by the publisher).
    var eventsDelivered = 0
    /// Events handed to the producer and not settled yet.
    var eventsPending = 0
    /// Batches whose latest change the changelog has not acknowledged yet.
    var snapshotsPending = 0
    /// Whether `/healthz` passes.
    var healthy = false
    /// Whether `/readyz` passes.
    var ready = false
}

extension WorkerMetrics {
    /// Sets what a scrape shows; the per-partition gauges list exactly the partitions owned now, so a partition
    /// handed over leaves no stale series behind on its old owner.
    func refresh(_ reading: ScrapeReading) {
        registry.set(Self.consumerLag, Double(reading.consumerLag))
        registry.set(Self.inFlightBatches, Double(reading.inFlightBatches))
        registry.set(Self.inFlightTransfers, Double(reading.inFlightTransfers))
        registry.set(Self.cachedBatches, Double(reading.cachedBatches))
        registry.set(Self.eventsDelivered, Double(reading.eventsDelivered))
        registry.set(Self.eventsPending, Double(reading.eventsPending))
        registry.set(Self.snapshotsPending, Double(reading.snapshotsPending))
        registry.set(Self.healthy, reading.healthy ? 1 : 0)
        registry.set(Self.ready, reading.ready ? 1 : 0)
        replace(Self.partitionCommitted, reading.partitions, with: \.committed)
        replace(Self.partitionEnd, reading.partitions, with: \.end)
        replace(Self.partitionLag, reading.partitions, with: \.lag)
    }

    private func replace(_ name: String, _ partitions: [PartitionProgress], with value: KeyPath<PartitionProgress, Int64?>) {
        registry.replace(name, with: partitions.compactMap { progress in
            progress[keyPath: value].map { (labels: ["partition": String(progress.partition.partition)], value: Double($0)) }
        })
    }

    /// Runs one partition's restore, counted as under way meanwhile; a restore that completes is counted with the
    /// time it took. A failure is counted by the caller (``restoreFailed()``), which knows whether it matters.
    func timingRestore<T>(_ restore: () async throws -> T) async rethrows -> T {
        registry.increment(Self.restoring)
        defer { registry.increment(Self.restoring, by: -1) }
        let started = ContinuousClock.now
        let result = try await restore()
        registry.increment(Self.restores, labels: ["outcome": "restored"])
        registry.observe(Self.restoreDuration, (ContinuousClock.now - started).timeInterval)
        return result
    }

    /// Counts a restore that failed for good (fatal: the worker stops).
    func restoreFailed() {
        registry.increment(Self.restores, labels: ["outcome": "failed"])
    }
}
