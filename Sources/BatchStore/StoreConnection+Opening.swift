extension StoreConnection {
    /// The size the WAL file is cut back to after a checkpoint, so that one large restore does not keep its space.
    static let walSizeLimitBytes = 64 << 20

    /// The page size of a new database file.
    static let pageSizeBytes = 8_192

    /// The most memory SQLite's page cache of the store takes between bulk applies, in KiB (half SQLite's default):
    /// the worker's resident memory per idle batch counts it, and a point lookup reads a handful of pages. Measured
    /// on the intake bench, 1 MiB instead of 2 took about 20 bytes off each idle batch and no CPU per job.
    static let pageCacheKibibytes = 1_024

    /// The page cache while a restore applies the changelog, in KiB: large enough that a whole restore writes each
    /// index page once. With random batch ids, 100,000 rows took about 0.65 s instead of 0.95.
    static let bulkPageCacheKibibytes = 16_384

    /// Why a file cannot serve, in two kinds: the file is at fault (rebuild it), or the machine is (report it).
    private enum OpenFailure: Error {
        /// The file is not a usable store of this version; the text says why.
        case unusable(String)
        /// Opening failed for a reason a new file would not fix (no permission, disk full, locked by another process).
        case failed(BatchStoreError)

        /// Sorts an SQLite error: a damaged file or one that is not a database can be rebuilt, anything else not.
        init(_ error: BatchStoreError) {
            self = error.isCorruption ? .unusable(error.description) : .failed(error)
        }
    }

    /// Opens the store at `path`, deleting and recreating a file that cannot serve.
    static func open(path: String, busyTimeout: Duration) throws(BatchStoreError) -> (StoreConnection, StoreOpening) {
        // Whole milliseconds, from 0 to Int32.max (24 days): SQLite takes an int.
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds >= Int64(Int32.max) / 1_000
            ? Int32.max : Int32(clamping: max(seconds * 1_000 + attoseconds / 1_000_000_000_000_000, 0))
        try StoreFiles.prepare(path)
        let reason: String
        do throws(OpenFailure) {
            let (connection, createdSchema) = try attach(path, busyTimeoutMilliseconds: milliseconds)
            return (connection, createdSchema ? .created : .opened)
        } catch {
            switch error {
            case .failed(let error): throw error
            case .unusable(let why): reason = why
            }
        }
        // The failed connection is closed by now (attach dropped it), so the files can go.
        try StoreFiles.remove(path)
        try StoreFiles.prepare(path)
        do throws(OpenFailure) {
            let (connection, _) = try attach(path, busyTimeoutMilliseconds: milliseconds)
            return (connection, .rebuilt(reason: reason))
        } catch {
            switch error {
            case .failed(let error): throw error
            case .unusable(let why): throw BatchStoreError(.unusable, why, operation: "open \(path)")
            }
        }
    }

    /// What a file holds, once it opened and could be read.
    private enum Contents {
        /// No tables and no version: a new or empty file.
        case empty
        /// A store of this build's schema version that passed its check.
        case current
        /// Something this build cannot use; the text says why.
        case unusable(String)
    }

    /// Opens the file, checks it, creates the schema in an empty database and prepares the statements.
    /// Returns whether the schema was created.
    private static func attach(_ path: String, busyTimeoutMilliseconds: Int32) throws(OpenFailure) -> (StoreConnection, Bool) {
        let database: SQLiteConnection
        let contents: Contents
        do throws(BatchStoreError) {
            database = try SQLiteConnection(path: path)
            try configure(database, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            contents = try inspect(database)
        } catch {
            throw OpenFailure(error)
        }
        let createSchema: Bool
        switch contents {
        case .empty: createSchema = true
        case .current: createSchema = false
        case .unusable(let reason): throw .unusable(reason)
        }
        do throws(BatchStoreError) {
            if createSchema { try create(on: database) }
            let statements = try StoreStatements(on: database)
            return (StoreConnection(database: database, statements: statements), createSchema)
        } catch let error where error.code == .sqliteError {
            // The version matches but the tables do not (a column or table missing): not a store this build wrote.
            throw .unusable("schema: \(error.message)")
        } catch {
            throw OpenFailure(error)
        }
    }

    /// Sets the locking, journal and sync modes; the first read of the file, so a file that is not a database fails here.
    private static func configure(_ database: SQLiteConnection, busyTimeoutMilliseconds: Int32) throws(BatchStoreError) {
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        // One process owns a store, so the connection keeps the file locked from its first read until it closes:
        // another process that opens it fails with SQLITE_BUSY (and never takes it for unusable and deletes it). In
        // WAL mode SQLite then keeps the WAL index in heap memory instead of a -shm file, which takes the
        // shared-memory locks off every call (a lookup costs about 5 µs instead of 8).
        try database.execute("PRAGMA locking_mode = EXCLUSIVE", "open: PRAGMA locking_mode")
        // Only takes effect in a new file. Snapshots are around 500 bytes, so a row fills an eighth of a 4 KiB page;
        // 8 KiB pages halve the pages written per batch of rows (an apply of 100,000 rows took about 0.6 s instead of
        // 0.8 on the development machine).
        try database.execute("PRAGMA page_size = \(pageSizeBytes)", "open: PRAGMA page_size")
        let journalMode = try database.firstColumn("PRAGMA journal_mode = WAL", "open: PRAGMA journal_mode")
        // The changelog is the source of truth and a checkpoint commits with its rows, so losing the last
        // transactions to a power cut only means reading a longer tail of the topic again. In WAL mode NORMAL never
        // corrupts the file on such a cut and saves an fsync per transaction; where WAL is not available (some network
        // file systems) the rollback journal needs FULL for that guarantee.
        let synchronous = journalMode.first?.lowercased() == "wal" ? "NORMAL" : "FULL"
        try database.execute("PRAGMA synchronous = \(synchronous); PRAGMA journal_size_limit = \(walSizeLimitBytes)",
                             "open: PRAGMA synchronous")
        try database.execute("PRAGMA cache_size = -\(pageCacheKibibytes)", "open: PRAGMA cache_size")
    }

    /// Runs `PRAGMA quick_check` and reads the schema version.
    private static func inspect(_ database: SQLiteConnection) throws(BatchStoreError) -> Contents {
        let check = try database.firstColumn("PRAGMA quick_check", "open: PRAGMA quick_check")
        guard check == ["ok"] else { return .unusable(checkFailure(check)) }
        let version = try database.firstColumn("PRAGMA user_version", "open: PRAGMA user_version").first.flatMap { Int32($0) } ?? 0
        let objectCount = try database.firstColumn("SELECT count(*) FROM sqlite_schema", "open: schema").first.flatMap { Int($0) } ?? 0
        if version == 0 && objectCount == 0 { return .empty }
        if version == StoreSchema.version { return .current }
        return .unusable("schema version \(version) (with \(objectCount) schema objects), this build uses \(StoreSchema.version)")
    }

    /// The first problems `PRAGMA quick_check` reported, on one line (it can list one per damaged page).
    private static func checkFailure(_ rows: [String]) -> String {
        let problems = rows.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("*** in database") }
        let more = problems.count > 3 ? "; and \(problems.count - 3) more" : ""
        return "PRAGMA quick_check: \(problems.prefix(3).joined(separator: "; "))\(more)"
    }

    /// Creates the tables and stamps the version in one transaction, so a crash cannot leave half a schema.
    private static func create(on database: SQLiteConnection) throws(BatchStoreError) {
        do throws(BatchStoreError) {
            try database.execute("BEGIN IMMEDIATE; \(StoreSchema.creation) COMMIT;", "open: create schema")
        } catch {
            if database.isInTransaction { try? database.execute("ROLLBACK", "open: create schema") }
            throw error
        }
    }
}
