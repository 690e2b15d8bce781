import Foundation
import Synchronization

/// Fetched URL sources kept between batches in the staging directory, found by the URL without query and
/// fragment, bounded by `staging.cacheMax` (least recently used evicted first; 0 = unlimited).
///
/// Finding an entry is not permission to serve it: each entry keeps the validator (`ETag`, else `Last-Modified`)
/// of the answer it came from, and the stager reuses it only after the origin confirms it for the job's own URL
/// with a 304 to a conditional GET. Entries without a validator are not kept.
///
/// A cache entry is a file of its own (`<uuid>.cache`); staging a cached source hard-links it to the staged name,
/// so nothing is copied and eviction never takes bytes from under a batch. While a batch holds an entry's bytes
/// the entry is pinned: it is neither evicted nor counted against the budget.
///
/// The index (`source-cache.json`) is written only when the set of entries changes — an entry kept, replaced,
/// evicted or lost — never for a checkout, whose only news is recency: a recency lost in a crash costs nothing but
/// the order of the next evictions. It is written outside the state's lock, atomically (a temporary file, flushed,
/// renamed), and changes that arrive during a write are coalesced into the next one. A crash between a change and
/// its write leaves an index that start-up reconciliation repairs: an unindexed cache file is deleted, an indexed
/// file that is gone drops its entry.
///
/// Every method blocks on the file system: call them through `StagingArea.offPool`. The state is behind a mutex,
/// held across the few file operations of one change (links and unlinks, never the index write).
public final class SourceCache: Sendable {
    /// The staging directory the cache lives in.
    public let directory: String
    /// The budget in bytes for unpinned entries; 0 = unlimited.
    public let maximumBytes: Int64
    /// The index in memory and the live links; file operations of one change happen under the same lock.
    let state: Mutex<State>
    /// The generation of the entry set the index file holds; held while the file is written, so writes happen one
    /// at a time and in order. Always taken before `state`, never while holding it.
    let indexWriter = Mutex<UInt64>(0)

    /// What the cache knows.
    struct State {
        /// Entries by key.
        var entries: [String: SourceCacheEntry] = [:]
        /// Live staged links per cache file name.
        var pins: [String: Int] = [:]
        /// The cache file each live staged path is a link to.
        var links: [String: String] = [:]
        /// The recency counter.
        var clock: UInt64 = 0
        /// Bumped whenever the set of entries changes: the index file is behind while it exceeds what was written.
        var generation: UInt64 = 0
    }

    /// The index's file name in the staging directory.
    static let indexName = "source-cache.json"
    /// The suffix of cache entry files (`<uuid>.cache`).
    static let fileSuffix = ".cache"

    /// Opens the cache in `area`'s directory and reconciles it (off the cooperative pool): indexed entries whose
    /// files are intact are kept; orphaned cache files, staged files and partial downloads left by an earlier run
    /// are deleted; other files are left alone. Call before anything is staged.
    public static func reconciled(in area: StagingArea, maximumBytes: Int64) async throws -> SourceCache {
        try await StagingArea.offPool { try SourceCache(directory: area.directory, maximumBytes: maximumBytes) }
    }

    /// Opens and reconciles synchronously; blocks.
    init(directory: String, maximumBytes: Int64) throws {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        state = Mutex(State())
        try state.withLock { state in try reconcile(&state) }
        writeIndex()
    }

    /// How much the cache holds: entries, bytes counted against the budget, and pinned bytes (not counted).
    public var usage: (entries: Int, countedBytes: Int64, pinnedBytes: Int64) {
        state.withLock { state in
            var counted: Int64 = 0
            var pinned: Int64 = 0
            for entry in state.entries.values {
                if state.pins[entry.file, default: 0] > 0 { pinned += entry.size } else { counted += entry.size }
            }
            return (state.entries.count, counted, pinned)
        }
    }

    /// The entry for `key` the origin may be asked to confirm: nil when there is none or it has no validator.
    /// Only reads the index in memory, but waits for the lock, which file operations hold.
    func revalidation(for key: String) -> SourceCacheEntry? {
        state.withLock { state in state.entries[key].flatMap { $0.validator == nil ? nil : $0 } }
    }

    /// Links the entry for `key` to `path` and pins it, if it is still the one whose file is `file` (the one the
    /// origin confirmed); nil when it was replaced, evicted, or its file vanished.
    /// Only a vanished file changes the index; a checkout itself writes nothing.
    func checkOut(_ key: String, file: String, to path: String) -> SourceCacheEntry? {
        let (entry, lost) = state.withLock { state -> (SourceCacheEntry?, Bool) in
            guard var entry = state.entries[key], entry.file == file else { return (nil, false) }
            guard link(filePath(entry.file), path) == 0 else {
                state.entries[key] = nil
                state.generation += 1
                return (nil, true)
            }
            state.clock += 1
            entry.lastUsed = state.clock
            state.entries[key] = entry
            state.pins[entry.file, default: 0] += 1
            state.links[path] = entry.file
            return (entry, false)
        }
        if lost { writeIndex() }
        return entry
    }

    /// Keeps the file staged at `path` as the entry for `key` (replacing an older one), pinned by that path.
    /// Without a validator nothing is kept, since such an entry could never be reused, and an older entry for the
    /// key goes too: the origin just answered with other bytes. A file that cannot be linked into the cache is
    /// simply not cached.
    func keep(_ key: String, stagedAt path: String, size: Int64, sha256: String, signature: ContentSignature?,
              validator: SourceValidator?) {
        let changed = state.withLock { state -> Bool in
            guard let validator else {
                guard let old = state.entries.removeValue(forKey: key) else { return false }
                unlink(filePath(old.file))
                state.generation += 1
                return true
            }
            let file = "\(UUID().uuidString.lowercased())\(Self.fileSuffix)"
            guard link(path, filePath(file)) == 0 else { return false }
            if let old = state.entries[key] { unlink(filePath(old.file)) }
            state.clock += 1
            state.entries[key] = SourceCacheEntry(
                key: key, file: file, size: size, sha256: sha256, sniffedType: signature?.mimeType, validator: validator,
                lastUsed: state.clock)
            state.pins[file, default: 0] += 1
            state.links[path] = file
            evict(&state)
            state.generation += 1
            return true
        }
        if changed { writeIndex() }
    }

    /// Deletes a staged file and unpins the entry it was linked to, if any; then evicts down to the budget.
    func release(_ path: String) {
        let evicted = state.withLock { state -> Bool in
            unlink(path)
            guard let file = state.links.removeValue(forKey: path) else { return false }
            let remaining = state.pins[file, default: 1] - 1
            state.pins[file] = remaining > 0 ? remaining : nil
            return evict(&state)
        }
        if evicted { writeIndex() }
    }

    /// Removes unpinned entries, least recently used first, until they fit the budget; true if any went (the
    /// generation is then bumped: the caller writes the index once it has let go of the lock).
    @discardableResult
    func evict(_ state: inout State) -> Bool {
        guard maximumBytes > 0 else { return false }
        let unpinned = state.entries.values.filter { state.pins[$0.file, default: 0] == 0 }.sorted { $0.lastUsed < $1.lastUsed }
        var counted = unpinned.reduce(Int64(0)) { $0 + $1.size }
        var evicted = false
        for entry in unpinned where counted > maximumBytes {
            unlink(filePath(entry.file))
            state.entries[entry.key] = nil
            counted -= entry.size
            evicted = true
        }
        if evicted { state.generation += 1 }
        return evicted
    }

    /// The absolute path of a file in the staging directory.
    func filePath(_ name: String) -> String { "\(directory)/\(name)" }
}
