/// What ``BatchStateStore/open(path:busyTimeout:)`` found at the path.
///
/// After `.created` or `.rebuilt` the store holds no partition: the caller restores every partition it owns from
/// the start of the changelog. After `.opened` it reads each partition's tail past its ``BatchStateStore/checkpoint(partition:)``.
public enum StoreOpening: Sendable, Equatable {
    /// A store of this schema version was there and passed its checks; its rows and checkpoints are kept.
    case opened
    /// There was no store (no file, or an empty one): a new one was made.
    case created
    /// A file was there but could not serve (not a database, damaged, another schema version): it was deleted with
    /// its `-wal` and `-shm` files and a new store made. `reason` says what was wrong, for the log.
    case rebuilt(reason: String)
}
