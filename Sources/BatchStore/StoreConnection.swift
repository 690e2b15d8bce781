import Foundation

/// The open store: its connection, its prepared statements, and the operations of ``BatchStateStore`` on them.
///
/// Not thread-safe: ``BatchStateStore`` keeps the one instance behind its mutex.
final class StoreConnection {
    private let database: SQLiteConnection
    private let statements: StoreStatements
    /// Restores under way that asked for the bulk page cache.
    private var bulkLoads = 0

    /// The store on `database`, whose schema `statements` were prepared against.
    init(database: SQLiteConnection, statements: StoreStatements) {
        self.database = database
        self.statements = statements
    }

    /// See ``BatchStateStore/checkpoint(partition:)``.
    func checkpoint(partition: Int32) throws(BatchStoreError) -> Int64? {
        try statements.readCheckpoint.use { statement throws(BatchStoreError) in
            try statement.bind(partition, at: 1)
            return try statement.step("checkpoint") ? statement.int64(at: 0) : nil
        }
    }

    /// See ``BatchStateStore/bulkLoading(_:)``: the first load in raises the page cache, the last one out shrinks
    /// it again, which frees the pages beyond it.
    func changeBulkLoads(by delta: Int) throws(BatchStoreError) {
        let wasBulk = bulkLoads > 0
        bulkLoads = max(0, bulkLoads + delta)
        guard wasBulk != (bulkLoads > 0) else { return }
        let kibibytes = bulkLoads > 0 ? Self.bulkPageCacheKibibytes : Self.pageCacheKibibytes
        try database.execute("PRAGMA cache_size = -\(kibibytes)", "bulk load: PRAGMA cache_size")
    }

    /// See ``BatchStateStore/apply(_:partition:checkpoint:)``.
    func apply(_ changes: [BatchChange], partition: Int32, checkpoint: Int64) throws(BatchStoreError) {
        let operation = "apply"
        try transaction(operation) { () throws(BatchStoreError) in
            let upsert = statements.upsert, delete = statements.delete
            try upsert.use { _ throws(BatchStoreError) in
                try delete.use { _ throws(BatchStoreError) in
                    // `run` keeps the bindings, so the partition is bound once for the whole list.
                    try upsert.bind(partition, at: 1)
                    try delete.bind(partition, at: 1)
                    for change in changes {
                        if let snapshot = change.snapshot {
                            try upsert.bind(change.batchId, at: 2)
                            try upsert.bind(snapshot, at: 3)
                            try upsert.bind(change.offset, at: 4)
                            try upsert.bind(change.pending, at: 5)
                            try upsert.bind(change.updatedAt, at: 6)
                            try upsert.run(operation)
                        } else {
                            try delete.bind(change.batchId, at: 2)
                            try delete.run(operation)
                        }
                    }
                }
            }
            try statements.writeCheckpoint.use { statement throws(BatchStoreError) in
                try statement.bind(partition, at: 1)
                try statement.bind(checkpoint, at: 2)
                try statement.run("\(operation): checkpoint")
            }
        }
    }

    /// See ``BatchStateStore/batch(partition:batchId:)``.
    func batch(partition: Int32, batchId: String) throws(BatchStoreError) -> StoredBatch? {
        try statements.batch.use { statement throws(BatchStoreError) in
            try statement.bind(partition, at: 1)
            try statement.bind(batchId, at: 2)
            return try statement.step("batch") ? Self.storedBatch(statement) : nil
        }
    }

    /// See ``BatchStateStore/pendingBatches(partition:)``.
    func pendingBatches(partition: Int32) throws(BatchStoreError) -> [StoredBatch] {
        try statements.pending.use { statement throws(BatchStoreError) in
            try statement.bind(partition, at: 1)
            return try Self.storedBatches(statement, "pendingBatches")
        }
    }

    /// See ``BatchStateStore/idleBatches(partition:updatedBefore:limit:)``; a negative limit counts as 0.
    func idleBatches(partition: Int32, updatedBefore: Int64, limit: Int) throws(BatchStoreError) -> [StoredBatch] {
        try statements.idle.use { statement throws(BatchStoreError) in
            try statement.bind(partition, at: 1)
            try statement.bind(updatedBefore, at: 2)
            try statement.bind(Int64(max(limit, 0)), at: 3)
            return try Self.storedBatches(statement, "idleBatches")
        }
    }

    /// See ``BatchStateStore/batchCount(partition:)``.
    func batchCount(partition: Int32) throws(BatchStoreError) -> Int {
        try statements.count.use { statement throws(BatchStoreError) in
            try statement.bind(partition, at: 1)
            return try statement.step("batchCount") ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// See ``BatchStateStore/dropPartition(_:)``.
    func dropPartition(_ partition: Int32) throws(BatchStoreError) {
        try transaction("dropPartition") { () throws(BatchStoreError) in try drop(partition, "dropPartition") }
    }

    /// See ``BatchStateStore/retainOnly(partitions:)``.
    func retainOnly(partitions: Set<Int32>) throws(BatchStoreError) -> Set<Int32> {
        let operation = "retainOnly"
        return try transaction(operation) { () throws(BatchStoreError) in
            let dropped = try storedPartitions(operation).subtracting(partitions)
            for partition in dropped { try drop(partition, operation) }
            return dropped
        }
    }

    /// A row filter built from the table as it is, with room for twice its rows (see ``StoredRowFilter``).
    func rowFilter() throws(BatchStoreError) -> StoredRowFilter {
        let operation = "row filter"
        let rows = try statements.countAll.use { statement throws(BatchStoreError) in
            try statement.step(operation) ? Int(statement.int64(at: 0)) : 0
        }
        var filter = StoredRowFilter(capacity: 2 * rows)
        try statements.allKeys.use { statement throws(BatchStoreError) in
            while try statement.step(operation) {
                statement.withText(at: 1) { filter.insert(partition: statement.int32(at: 0), batchIdBytes: $0) }
            }
        }
        return filter
    }

    // MARK: Helpers

    /// Runs `body` in one write transaction: it commits if `body` returns, and rolls back if anything throws.
    private func transaction<T>(_ operation: String, _ body: () throws(BatchStoreError) -> T) throws(BatchStoreError) -> T {
        try statements.begin.run("\(operation): BEGIN")
        do throws(BatchStoreError) {
            let result = try body()
            try statements.commit.run("\(operation): COMMIT")
            return result
        } catch {
            // A failed COMMIT can leave the transaction open; SQLite may also have rolled it back already.
            if database.isInTransaction { try? statements.rollback.run("\(operation): ROLLBACK") }
            throw error
        }
    }

    private func drop(_ partition: Int32, _ operation: String) throws(BatchStoreError) {
        for statement in [statements.deletePartitionRows, statements.deleteCheckpoint] {
            try statement.use { statement throws(BatchStoreError) in
                try statement.bind(partition, at: 1)
                try statement.run(operation)
            }
        }
    }

    /// Every partition with a checkpoint or a row.
    private func storedPartitions(_ operation: String) throws(BatchStoreError) -> Set<Int32> {
        var partitions = try statements.checkpointPartitions.use { statement throws(BatchStoreError) in
            var partitions = Set<Int32>()
            while try statement.step(operation) { partitions.insert(statement.int32(at: 0)) }
            return partitions
        }
        var after = Int64(Int32.min) - 1
        while let next = try statements.nextPartition.use({ statement throws(BatchStoreError) -> Int32? in
            try statement.bind(after, at: 1)
            return try statement.step(operation) ? statement.int32(at: 0) : nil
        }) {
            partitions.insert(next)
            after = Int64(next)
        }
        return partitions
    }

    /// Reads the row the statement is on; the columns are ``StoreStatements/batchColumns``.
    private static func storedBatch(_ statement: SQLiteStatement) -> StoredBatch {
        StoredBatch(partition: statement.int32(at: 0), batchId: statement.string(at: 1), snapshot: statement.data(at: 2),
                    offset: statement.int64(at: 3), pending: statement.bool(at: 4), updatedAt: statement.int64(at: 5))
    }

    private static func storedBatches(_ statement: SQLiteStatement, _ operation: String) throws(BatchStoreError) -> [StoredBatch] {
        var batches: [StoredBatch] = []
        while try statement.step(operation) { batches.append(storedBatch(statement)) }
        return batches
    }
}
