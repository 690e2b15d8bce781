import CSQLite

/// Owns one `sqlite3` connection handle, closed when the object goes away.
///
/// Not thread-safe: one thread at a time (the connection is opened with `SQLITE_OPEN_NOMUTEX`; ``BatchStateStore``
/// keeps it behind its mutex).
final class SQLiteConnection {
    /// The handle, lent to this module's statements and pragmas.
    let pointer: OpaquePointer

    /// Opens (creating if missing) the database file at `path`, with extended result codes.
    init(path: String) throws(BatchStoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let resultCode = sqlite3_open_v2(path, &handle, flags, nil)
        guard resultCode == SQLITE_OK, let handle else {
            let error = BatchStoreError(resultCode: resultCode, database: handle, operation: "open \(path)")
            sqlite3_close_v2(handle)
            throw error
        }
        pointer = handle
    }

    deinit {
        // close_v2 defers the close until every statement is finalized; the statements keep this object alive, so
        // by now they are gone and the close (with its WAL checkpoint) happens here.
        sqlite3_close_v2(pointer)
    }

    /// The error for `resultCode`, with the connection's message.
    func error(_ resultCode: Int32, _ operation: String) -> BatchStoreError {
        BatchStoreError(resultCode: resultCode, database: pointer, operation: operation)
    }

    /// Waits up to `milliseconds` for another connection's lock before answering `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(pointer, milliseconds)
    }

    /// Whether a transaction is open (the connection is not in autocommit mode).
    var isInTransaction: Bool { sqlite3_get_autocommit(pointer) == 0 }

    /// Runs `sql` (one or more statements, no parameters), dropping any rows.
    func execute(_ sql: String, _ operation: String) throws(BatchStoreError) {
        let resultCode = sqlite3_exec(pointer, sql, nil, nil, nil)
        guard resultCode == SQLITE_OK else { throw error(resultCode, operation) }
    }

    /// Runs one statement and returns the text of the first column of every row (for pragmas).
    func firstColumn(_ sql: String, _ operation: String) throws(BatchStoreError) -> [String] {
        let statement = try SQLiteStatement(sql, on: self, persistent: false, operation: operation)
        return try statement.use { statement throws(BatchStoreError) in
            var values: [String] = []
            while try statement.step(operation) { values.append(statement.string(at: 0)) }
            return values
        }
    }
}
