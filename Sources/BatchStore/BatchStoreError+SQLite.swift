import CSQLite

extension BatchStoreError {
    /// The error SQLite reported on `database` for result code `resultCode` while doing `operation`.
    init(resultCode: Int32, database: OpaquePointer?, operation: String) {
        // sqlite3_errmsg describes the most recent failure on the connection; without one, use the generic text.
        let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(resultCode))
        self.init(Code(rawValue: Self.primaryCodeName(resultCode)), message, operation: operation, libraryCode: resultCode)
    }

    /// The name of SQLite's primary result code within an extended one (`SQLITE_IOERR_SHORT_READ` → `SQLITE_IOERR`).
    static func primaryCodeName(_ resultCode: Int32) -> String {
        switch resultCode & 0xff {
        case SQLITE_ERROR: "SQLITE_ERROR"
        case SQLITE_INTERNAL: "SQLITE_INTERNAL"
        case SQLITE_PERM: "SQLITE_PERM"
        case SQLITE_ABORT: "SQLITE_ABORT"
        case SQLITE_BUSY: "SQLITE_BUSY"
        case SQLITE_LOCKED: "SQLITE_LOCKED"
        case SQLITE_NOMEM: "SQLITE_NOMEM"
        case SQLITE_READONLY: "SQLITE_READONLY"
        case SQLITE_INTERRUPT: "SQLITE_INTERRUPT"
        case SQLITE_IOERR: "SQLITE_IOERR"
        case SQLITE_CORRUPT: "SQLITE_CORRUPT"
        case SQLITE_NOTFOUND: "SQLITE_NOTFOUND"
        case SQLITE_FULL: "SQLITE_FULL"
        case SQLITE_CANTOPEN: "SQLITE_CANTOPEN"
        case SQLITE_PROTOCOL: "SQLITE_PROTOCOL"
        case SQLITE_SCHEMA: "SQLITE_SCHEMA"
        case SQLITE_TOOBIG: "SQLITE_TOOBIG"
        case SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: "SQLITE_MISMATCH"
        case SQLITE_MISUSE: "SQLITE_MISUSE"
        case SQLITE_NOLFS: "SQLITE_NOLFS"
        case SQLITE_AUTH: "SQLITE_AUTH"
        case SQLITE_RANGE: "SQLITE_RANGE"
        case SQLITE_NOTADB: "SQLITE_NOTADB"
        default: "SQLITE_\(resultCode & 0xff)"
        }
    }
}
