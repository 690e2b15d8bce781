import Synchronization

/// The local SQLite materialisation of the batch-state changelog: per partition, the latest snapshot of every batch
/// and the checkpoint (the next changelog offset to read).
///
/// The store is a cache of the changelog topic, never the source of truth: ``open(path:busyTimeout:)`` rebuilds a file that cannot
/// serve, and the caller restores from the topic whatever the store does not hold (every partition after `.created`
/// or `.rebuilt`; a partition whose checkpoint is past the topic's end offset, after ``dropPartition(_:)``).
///
/// Threading: one SQLite connection behind a mutex, with its statements prepared once. Every call is a short
/// synchronous SQLite call that may wait on the disk (an ``apply(_:partition:checkpoint:)`` of a whole restore takes
/// a fraction of a second); run them from the tasks or threads that restore and snapshot batches, off the hot paths
/// of the cooperative pool. One process uses a store file at a time (a staging directory belongs to one worker).
public final class BatchStateStore: Sendable {
    private let connection: Mutex<StoreConnection?>
    /// Its own lock, so that a lookup of a batch the store cannot hold waits for no write transaction; nil once
    /// closed, so that lookups fail as every call does then.
    private let rows: Mutex<StoredRowFilter?>

    private init(_ connection: sending StoreConnection, rows: StoredRowFilter) {
        self.rows = Mutex(rows)
        self.connection = Mutex(connection)
    }

    /// Opens the store at `path` (normally `staging.dir/state.db`), creating it and its directory if missing.
    ///
    /// Sets WAL journalling and `synchronous=NORMAL`, and runs `PRAGMA quick_check`. A file that is not a database,
    /// fails the check or has another schema version is deleted with its `-wal` and `-shm` files and made anew: the
    /// answer is then ``StoreOpening/rebuilt(reason:)``. The files get mode 0600.
    ///
    /// The store keeps the file locked until ``close()``: while another process (or another open store) holds it,
    /// opening waits up to `busyTimeout`, then fails with ``BatchStoreError/Code/busy`` and leaves the file alone.
    public static func open(path: String, busyTimeout: Duration = .seconds(5)) throws(BatchStoreError) -> (BatchStateStore, StoreOpening) {
        let (connection, opening) = try StoreConnection.open(path: path, busyTimeout: busyTimeout)
        let rows = try connection.rowFilter()
        return (BatchStateStore(connection, rows: rows), opening)
    }

    /// The next changelog offset to read for `partition`, or `nil` when the store has no checkpoint for it.
    public func checkpoint(partition: Int32) throws(BatchStoreError) -> Int64? {
        try withConnection("checkpoint") { connection throws(BatchStoreError) in try connection.checkpoint(partition: partition) }
    }

    /// Applies changelog records of `partition` in list order (a later change of a batch wins) and records
    /// `checkpoint` as the next offset to read, all in one transaction: after a crash the store holds either all of
    /// it or none of it. A tombstone of a batch the store does not hold changes nothing. Offsets and the checkpoint
    /// must not be negative (`SQLITE_CONSTRAINT` otherwise, and nothing is applied).
    public func apply(_ changes: [BatchChange], partition: Int32, checkpoint: Int64) throws(BatchStoreError) {
        try withConnection("apply") { connection throws(BatchStoreError) in
            // Into the filter before the rows are written: a reader never misses a row it could find.
            let full = rows.withLock { rows -> Bool in
                for change in changes where change.snapshot != nil { rows?.insert(partition: partition, batchId: change.batchId) }
                return rows?.isFull ?? false
            }
            try connection.apply(changes, partition: partition, checkpoint: checkpoint)
            // Under the connection's lock, so no write slips between the table read and the swap. The rows are in
            // by now: a rebuild that fails keeps the full filter, which still hides no row (it only lets more
            // unknown ids through to a query).
            if full, let rebuilt = try? connection.rowFilter() {
                rows.withLock { $0 = rebuilt }
            }
        }
    }

    /// Runs `body` — a restore applying a changelog partition — with a page cache large enough for bulk applies
    /// (16 MiB instead of 2): between restores the store answers point lookups, and its cache counts against the
    /// worker's memory per idle batch. Restores may overlap; the cache shrinks when the last one ends.
    public func bulkLoading<T>(_ body: () async throws -> T) async throws -> T {
        try withConnection("bulk load") { connection throws(BatchStoreError) in try connection.changeBulkLoads(by: 1) }
        defer { try? withConnection("bulk load") { connection throws(BatchStoreError) in try connection.changeBulkLoads(by: -1) } }
        return try await body()
    }

    /// The stored batch `batchId` of `partition`, or `nil`.
    public func batch(partition: Int32, batchId: String) throws(BatchStoreError) -> StoredBatch? {
        guard rows.withLock({ $0?.mayContain(partition: partition, batchId: batchId) ?? true }) else { return nil }
        return try withConnection("batch") { connection throws(BatchStoreError) in
            try connection.batch(partition: partition, batchId: batchId)
        }
    }

    /// The batches of `partition` with work in flight, least recently changed first.
    public func pendingBatches(partition: Int32) throws(BatchStoreError) -> [StoredBatch] {
        try withConnection("pendingBatches") { connection throws(BatchStoreError) in
            try connection.pendingBatches(partition: partition)
        }
    }

    /// Up to `limit` batches of `partition` without work in flight that last changed before `updatedBefore`
    /// (milliseconds since the epoch), least recently changed first: the candidates for expiry.
    public func idleBatches(partition: Int32, updatedBefore: Int64, limit: Int) throws(BatchStoreError) -> [StoredBatch] {
        try withConnection("idleBatches") { connection throws(BatchStoreError) in
            try connection.idleBatches(partition: partition, updatedBefore: updatedBefore, limit: limit)
        }
    }

    /// How many batches the store holds for `partition`.
    public func batchCount(partition: Int32) throws(BatchStoreError) -> Int {
        try withConnection("batchCount") { connection throws(BatchStoreError) in try connection.batchCount(partition: partition) }
    }

    /// Deletes the rows and the checkpoint of `partition`, in one transaction: for a partition to be restored from the
    /// start of the changelog, or one no longer owned.
    public func dropPartition(_ partition: Int32) throws(BatchStoreError) {
        try withConnection("dropPartition") { connection throws(BatchStoreError) in try connection.dropPartition(partition) }
    }

    /// Deletes the rows and checkpoints of every partition not in `partitions`, in one transaction; returns the
    /// partitions it deleted.
    @discardableResult
    public func retainOnly(partitions: Set<Int32>) throws(BatchStoreError) -> Set<Int32> {
        try withConnection("retainOnly") { connection throws(BatchStoreError) in try connection.retainOnly(partitions: partitions) }
    }

    /// Closes the connection (checkpointing the WAL into the database file); later calls fail with
    /// ``BatchStoreError/Code/closed``. Closing twice is harmless. Dropping the last reference closes it as well.
    public func close() {
        connection.withLock { connection in
            connection = nil
            rows.withLock { $0 = nil }
        }
    }

    private func withConnection<T: Sendable>(
        _ operation: String, _ body: (StoreConnection) throws(BatchStoreError) -> T
    ) throws(BatchStoreError) -> T {
        try connection.withLock { connection throws(BatchStoreError) -> T in
            guard let connection else { throw BatchStoreError(.closed, "the store is closed", operation: operation) }
            return try body(connection)
        }
    }
}
