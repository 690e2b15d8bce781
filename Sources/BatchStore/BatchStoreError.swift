/// The one error type of BatchStore: a stable code, SQLite's message and the operation that failed.
///
/// Codes that come from SQLite are the names of its primary result codes (`SQLITE_BUSY`, `SQLITE_CORRUPT`,
/// `SQLITE_CONSTRAINT`, …), with the extended result code in ``libraryCode`` and `sqlite3_errmsg` as the message.
/// Codes that BatchStore raises itself are the `ERR_BATCH_STORE_*` members of ``Code``.
public struct BatchStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code string, safe to log and to match on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code string.
        public let rawValue: String
        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// The store was closed before the call.
        public static let closed = Code(rawValue: "ERR_BATCH_STORE_CLOSED")
        /// The directory or the files of the store could not be created, changed or removed.
        public static let fileSystem = Code(rawValue: "ERR_BATCH_STORE_FILE_SYSTEM")
        /// A freshly created store still failed its checks (never expected; the message says which).
        public static let unusable = Code(rawValue: "ERR_BATCH_STORE_UNUSABLE")
        /// A value does not fit SQLite's limits (a key or snapshot of 1 GB or more, SQLite's default maximum).
        public static let tooBig = Code(rawValue: "SQLITE_TOOBIG")
        /// The database file is locked by another connection (after the busy timeout).
        public static let busy = Code(rawValue: "SQLITE_BUSY")
        /// A table in the database is locked.
        public static let locked = Code(rawValue: "SQLITE_LOCKED")
        /// The database file is damaged.
        public static let corrupt = Code(rawValue: "SQLITE_CORRUPT")
        /// The file is not a database.
        public static let notADatabase = Code(rawValue: "SQLITE_NOTADB")
        /// A value broke a constraint of the schema (a negative offset or checkpoint).
        public static let constraint = Code(rawValue: "SQLITE_CONSTRAINT")
        /// The disk is full.
        public static let full = Code(rawValue: "SQLITE_FULL")
        /// SQLite's generic error: among others, SQL naming a table or column the database does not have.
        public static let sqliteError = Code(rawValue: "SQLITE_ERROR")
    }

    /// The stable code.
    public var code: Code
    /// What went wrong, for people; for SQLite errors the text of `sqlite3_errmsg`.
    public var message: String
    /// What the store was doing, e.g. `apply` or `open: PRAGMA quick_check`.
    public var operation: String
    /// SQLite's extended result code, when the error came from SQLite.
    public var libraryCode: Int32?

    /// Makes an error with a code of BatchStore's own.
    public init(_ code: Code, _ message: String, operation: String, libraryCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.operation = operation
        self.libraryCode = libraryCode
    }

    /// Whether repeating the operation may succeed: another connection held the file longer than the busy timeout.
    public var isRetryable: Bool { code == .busy || code == .locked }

    /// Whether the file is damaged or not a database: close the store and open it again to rebuild it.
    public var isCorruption: Bool { code == .corrupt || code == .notADatabase }

    /// `CODE in operation: message`.
    public var description: String { "\(code.rawValue) in \(operation): \(message)" }
}
