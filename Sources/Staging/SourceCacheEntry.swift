import WireFormat

/// One fetched source kept in the staging directory, as the cache's on-disk index records it.
struct SourceCacheEntry: Sendable, Hashable {
    /// The source URL without query and fragment.
    var key: String
    /// The cache file's name in the staging directory (`<uuid>.cache`, generated).
    var file: String
    /// The entry's size in bytes.
    var size: Int64
    /// Hex SHA-256 of the bytes.
    var sha256: String
    /// The sniffed mime type, when the content was recognised.
    var sniffedType: String?
    /// How the origin is asked whether the entry is still current; an entry without one is never reused.
    var validator: SourceValidator?
    /// When it was last staged, on the cache's own counter: the higher, the more recent.
    var lastUsed: UInt64
}

/// The cache's on-disk index: `source-cache.json` in the staging directory.
struct SourceCacheIndex: Sendable {
    /// The format; an index of another version is ignored (its files then count as orphans).
    var version = 1
    /// Every entry, least recently used first.
    var entries: [SourceCacheEntry] = []
}
