import Foundation
import WireFormat

/// Reading, writing and reconciling the on-disk index.
extension SourceCache {
    /// Loads the index, keeps the entries whose files are intact, deletes what an earlier run left behind
    /// (partial and staged `.part` files, unindexed `.cache` files, a half-written index) and evicts down to the
    /// budget. Files the worker did not name are never touched: the directory is not wiped. Called with the state
    /// locked; the caller writes the index afterwards.
    func reconcile(_ state: inout State) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        var kept: [String: SourceCacheEntry] = [:]
        for entry in loadIndex().entries where Self.isCacheFileName(entry.file) && kept[entry.key] == nil {
            var info = stat()
            guard lstat(filePath(entry.file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  Int64(info.st_size) == entry.size
            else { continue }
            kept[entry.key] = entry
        }
        let keptFiles = Set(kept.values.map(\.file))
        for name in names where !keptFiles.contains(name) {
            if name.hasSuffix(".part") || Self.isCacheFileName(name) || name == Self.indexName + ".tmp" {
                unlink(filePath(name))
            }
        }
        state.entries = kept
        state.clock = kept.values.map(\.lastUsed).max() ?? 0
        evict(&state)
        state.generation += 1
    }

    /// The index on disk; empty when there is none or it cannot be read.
    func loadIndex() -> SourceCacheIndex {
        guard let data = FileManager.default.contents(atPath: filePath(Self.indexName)),
              let json = try? JSONParser.parse(data), let index = SourceCacheIndex(json), index.version == 1
        else { return SourceCacheIndex() }
        return index
    }

    /// Brings the index file up to the entry set, unless a write since the last change already did. Call without
    /// holding the state's lock: the state is locked only to take a snapshot, and the write happens outside it.
    func writeIndex() {
        indexWriter.withLock { written in
            let (generation, entries) = state.withLock { ($0.generation, $0.entries) }
            guard generation > written else { return }
            if persist(entries) { written = generation }
        }
    }

    /// Writes the index: a temporary file, flushed, then renamed over the old one. A failure leaves the old index,
    /// which the next change writes again and the next start reconciles against the files.
    private func persist(_ entries: [String: SourceCacheEntry]) -> Bool {
        let index = SourceCacheIndex(entries: entries.values.sorted { $0.lastUsed < $1.lastUsed })
        var writer = JSONWriter(capacity: 256 * index.entries.count + 64)
        writer.value(index.json)
        let data = writer.bytes
        let temporary = filePath(Self.indexName + ".tmp")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let written = data.withUnsafeBytes { bytes in (try? StagingArea.writeAll(descriptor, bytes)) != nil }
        let flushed = fsync(descriptor) == 0
        close(descriptor)
        guard written, flushed, rename(temporary, filePath(Self.indexName)) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Whether `name` is a cache file name the cache itself would generate (`<uuid>.cache`).
    static func isCacheFileName(_ name: String) -> Bool {
        guard name.hasSuffix(fileSuffix) else { return false }
        let stem = name.dropLast(fileSuffix.count)
        return stem.count == 36 && stem.allSatisfy { $0.isHexDigit || $0 == "-" }
    }
}
