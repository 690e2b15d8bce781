/// The prepared statements of the store, made once when it opens and reused by every call.
struct StoreStatements {
    /// `BEGIN IMMEDIATE`, `COMMIT` and `ROLLBACK`.
    let begin: SQLiteStatement, commit: SQLiteStatement, rollback: SQLiteStatement
    /// Inserts or replaces a batch row: partition, batch id, snapshot, offset, pending, updated at.
    let upsert: SQLiteStatement
    /// Deletes a batch row: partition, batch id.
    let delete: SQLiteStatement
    /// Reads and writes the checkpoint of a partition.
    let readCheckpoint: SQLiteStatement, writeCheckpoint: SQLiteStatement
    /// One batch row by partition and batch id.
    let batch: SQLiteStatement
    /// The pending rows of a partition, least recently changed first.
    let pending: SQLiteStatement
    /// Up to a limit of the idle rows of a partition changed before a time, least recently changed first.
    let idle: SQLiteStatement
    /// How many rows a partition has.
    let count: SQLiteStatement
    /// How many rows the table has, and the key of every row (for the row filter).
    let countAll: SQLiteStatement, allKeys: SQLiteStatement
    /// Delete the rows and the checkpoint of a partition.
    let deletePartitionRows: SQLiteStatement, deleteCheckpoint: SQLiteStatement
    /// The lowest partition with rows above a given one.
    let nextPartition: SQLiteStatement
    /// Every partition with a checkpoint.
    let checkpointPartitions: SQLiteStatement

    /// The columns every row query selects, in the order ``StoreConnection`` reads them.
    static let batchColumns = "partition, batch_id, snapshot, changelog_offset, pending, updated_at"

    /// Prepares every statement; fails with `SQLITE_ERROR` when the tables are not those of ``StoreSchema``.
    init(on connection: SQLiteConnection) throws(BatchStoreError) {
        func prepare(_ sql: String) throws(BatchStoreError) -> SQLiteStatement {
            try SQLiteStatement(sql, on: connection)
        }
        let columns = Self.batchColumns
        // IMMEDIATE takes the write lock at once, so a busy file fails at BEGIN rather than half-way through.
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
        rollback = try prepare("ROLLBACK")
        upsert = try prepare("""
            INSERT INTO batches (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (partition, batch_id) DO UPDATE SET snapshot = excluded.snapshot,
                changelog_offset = excluded.changelog_offset, pending = excluded.pending, updated_at = excluded.updated_at
            """)
        delete = try prepare("DELETE FROM batches WHERE partition = ?1 AND batch_id = ?2")
        readCheckpoint = try prepare("SELECT next_offset FROM checkpoints WHERE partition = ?1")
        writeCheckpoint = try prepare("""
            INSERT INTO checkpoints (partition, next_offset) VALUES (?1, ?2)
            ON CONFLICT (partition) DO UPDATE SET next_offset = excluded.next_offset
            """)
        batch = try prepare("SELECT \(columns) FROM batches WHERE partition = ?1 AND batch_id = ?2")
        pending = try prepare("""
            SELECT \(columns) FROM batches WHERE partition = ?1 AND pending = 1 ORDER BY updated_at, batch_id
            """)
        idle = try prepare("""
            SELECT \(columns) FROM batches WHERE partition = ?1 AND pending = 0 AND updated_at < ?2
            ORDER BY updated_at, batch_id LIMIT ?3
            """)
        count = try prepare("SELECT count(*) FROM batches WHERE partition = ?1")
        countAll = try prepare("SELECT count(*) FROM batches")
        allKeys = try prepare("SELECT partition, batch_id FROM batches")
        deletePartitionRows = try prepare("DELETE FROM batches WHERE partition = ?1")
        deleteCheckpoint = try prepare("DELETE FROM checkpoints WHERE partition = ?1")
        // One index seek per partition present, however many rows each holds.
        nextPartition = try prepare("SELECT partition FROM batches WHERE partition > ?1 ORDER BY partition LIMIT 1")
        checkpointPartitions = try prepare("SELECT partition FROM checkpoints")
    }
}
