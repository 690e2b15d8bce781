import CSQLite
import Foundation

/// Owns one prepared `sqlite3_stmt`, finalized when the object goes away; keeps its connection alive.
///
/// Used through ``use(_:)``, which resets the statement afterwards so that a read never stays open (an open read
/// would hold back WAL checkpoints). Not thread-safe, like its connection.
final class SQLiteStatement {
    private let pointer: OpaquePointer
    private let connection: SQLiteConnection

    /// Prepares `sql` on `connection`; `persistent` tells SQLite the statement is kept and reused. A failure names
    /// `operation`, or the SQL when there is none.
    init(_ sql: String, on connection: SQLiteConnection, persistent: Bool = true, operation: String? = nil) throws(BatchStoreError) {
        var handle: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let resultCode = sqlite3_prepare_v3(connection.pointer, sql, -1, flags, &handle, nil)
        guard resultCode == SQLITE_OK, let handle else { throw connection.error(resultCode, operation ?? "prepare \(sql)") }
        pointer = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    /// Runs `body`, then resets the statement and clears its bindings (freeing the copies of bound values).
    func use<T>(_ body: (SQLiteStatement) throws(BatchStoreError) -> T) throws(BatchStoreError) -> T {
        defer {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
        }
        return try body(self)
    }

    /// Steps once: `true` when a row is ready, `false` when the statement is done.
    func step(_ operation: String) throws(BatchStoreError) -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let resultCode: throw connection.error(resultCode, operation)
        }
    }

    /// Steps a statement that returns no rows to its end and resets it, keeping the bindings for the next run.
    func run(_ operation: String) throws(BatchStoreError) {
        let resultCode = sqlite3_step(pointer)
        // Take the message before the reset: the reset repeats the code but may leave a different message.
        let failure = resultCode == SQLITE_DONE || resultCode == SQLITE_ROW ? nil : connection.error(resultCode, operation)
        sqlite3_reset(pointer)
        if let failure { throw failure }
    }

    // MARK: Parameters (1-based, as in SQLite)

    /// Binds a 64-bit integer.
    func bind(_ value: Int64, at index: Int32) throws(BatchStoreError) {
        try check(sqlite3_bind_int64(pointer, index, value), index)
    }

    /// Binds a 32-bit integer.
    func bind(_ value: Int32, at index: Int32) throws(BatchStoreError) {
        try check(sqlite3_bind_int(pointer, index, value), index)
    }

    /// Binds a flag as 0 or 1.
    func bind(_ value: Bool, at index: Int32) throws(BatchStoreError) {
        try check(sqlite3_bind_int(pointer, index, value ? 1 : 0), index)
    }

    /// Binds text, copied by SQLite (its UTF-8 bytes, NULs included).
    func bind(_ value: String, at index: Int32) throws(BatchStoreError) {
        var value = value
        let resultCode = value.withUTF8 { bytes in
            guard let length = Int32(exactly: bytes.count) else { return Self.lengthOverflow }
            return bytes.withMemoryRebound(to: CChar.self) {
                attache_sqlite3_bind_text_transient(pointer, index, $0.baseAddress, length)
            }
        }
        try check(resultCode, index)
    }

    /// Binds a blob, copied by SQLite.
    func bind(_ value: Data, at index: Int32) throws(BatchStoreError) {
        let resultCode = value.withUnsafeBytes { bytes in
            guard let length = Int32(exactly: bytes.count) else { return Self.lengthOverflow }
            return attache_sqlite3_bind_blob_transient(pointer, index, bytes.baseAddress, length)
        }
        try check(resultCode, index)
    }

    /// Stands for a value whose length does not fit SQLite's `int` (no SQLite result code is negative).
    private static let lengthOverflow: Int32 = -1

    private func check(_ resultCode: Int32, _ index: Int32) throws(BatchStoreError) {
        if resultCode == SQLITE_OK { return }
        let operation = "bind parameter \(index)"
        if resultCode == Self.lengthOverflow {
            throw BatchStoreError(.tooBig, "a value of 2 GiB or more cannot be bound", operation: operation)
        }
        throw connection.error(resultCode, operation)
    }

    // MARK: Columns of the current row (0-based, as in SQLite)

    /// A column as a 64-bit integer.
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }

    /// A column as a 32-bit integer.
    func int32(at column: Int32) -> Int32 { sqlite3_column_int(pointer, column) }

    /// A column as a flag (non-zero is true).
    func bool(at column: Int32) -> Bool { sqlite3_column_int(pointer, column) != 0 }

    /// A column as text (empty for NULL).
    func string(at column: Int32) -> String {
        // column_text before column_bytes: the length is that of the text form.
        guard let text = sqlite3_column_text(pointer, column) else { return "" }
        let count = Int(sqlite3_column_bytes(pointer, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Lends the bytes of a text column, valid until the next step, without making a `String` of them.
    func withText(at column: Int32, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard let text = sqlite3_column_text(pointer, column) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(pointer, column))))
    }

    /// A column as bytes, copied out (empty for NULL or a zero-length blob).
    func data(at column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(pointer, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(pointer, column)))
    }
}
