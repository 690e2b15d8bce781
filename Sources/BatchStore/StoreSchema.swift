/// The tables of the store and the version that `PRAGMA user_version` records for them.
///
/// A file with another version is not migrated: the store is a cache of the changelog, so it is rebuilt from the
/// topic instead. Change ``version`` whenever the tables change.
enum StoreSchema {
    /// The schema version this build reads and writes.
    static let version: Int32 = 1

    /// Creates the tables in an empty database and stamps the version (run inside one transaction).
    static let creation = """
        CREATE TABLE batches (
            partition INTEGER NOT NULL,
            batch_id TEXT NOT NULL,
            snapshot BLOB NOT NULL,
            changelog_offset INTEGER NOT NULL CHECK (changelog_offset >= 0),
            pending INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (partition, batch_id)
        ) STRICT;
        CREATE INDEX batches_by_activity ON batches (partition, pending, updated_at, batch_id);
        CREATE TABLE checkpoints (
            partition INTEGER PRIMARY KEY,
            next_offset INTEGER NOT NULL CHECK (next_offset >= 0)
        ) STRICT;
        PRAGMA user_version = \(version);
        """
}
