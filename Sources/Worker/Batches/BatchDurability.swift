import UploadEngine

/// Where the registry's batches live beyond memory (DESIGN §4.1): snapshots out after every change of durable
/// state, batches read back when a record for one not in memory arrives.
///
/// The registry tells it about changes and asks it before letting records go: a record is committed only once the
/// snapshot reflecting it was delivered ("snapshot before offset").
protocol BatchDurability: Sendable {
    /// The stored batch, decoded, for a record whose batch is not in memory; nil when the store has none.
    func load(batchId: String, partition: Int32) -> UploadBatch?
    /// The batch changed durable state: a snapshot of it is due (coalesced within `state.flushInterval`).
    func changed(batchId: String, partition: Int32, runner: BatchRunner)
    /// A record was applied to the batch as a value, which left it settled, with no runner in memory: a snapshot of
    /// `batch` is due, and ``load(batchId:partition:)`` gives `batch` back until a snapshot that new is recorded.
    /// Its events must have been handed to the publisher first ("events before snapshot").
    func settled(batchId: String, partition: Int32, batch: UploadBatch)
    /// The batch expired: a tombstone replaces its snapshots. (A cleared batch is snapshotted as cleared, §4.1.)
    func forget(batchId: String, partition: Int32)
    /// Runs `action` once a snapshot of the batch at `version` or later — or its tombstone — was delivered.
    func whenRecorded(batchId: String, version: Int, _ action: @escaping @Sendable () -> Void)
    /// Whether idle batches may leave memory: only when the store can give them back.
    var keepsBatches: Bool { get }
    /// Whether recorded state cannot be kept right now (the local store refuses writes): intake waits meanwhile.
    var isBlocked: Bool { get }
}

/// `state.durable = false`: batches live in memory only and are lost on handover; records wait for nothing more.
struct VolatileBatchState: BatchDurability {
    func load(batchId: String, partition: Int32) -> UploadBatch? { nil }
    func changed(batchId: String, partition: Int32, runner: BatchRunner) {}
    func settled(batchId: String, partition: Int32, batch: UploadBatch) {}
    func forget(batchId: String, partition: Int32) {}
    func whenRecorded(batchId: String, version: Int, _ action: @escaping @Sendable () -> Void) { action() }
    var keepsBatches: Bool { false }
    var isBlocked: Bool { false }
}
