import Foundation

/// The most recently recorded snapshots of batches, encoded, up to `worker.maxCachedBatches` of them: the idle
/// batches held in memory (DESIGN §4.1). A record for one of them decodes it from here instead of reading the store.
///
/// Encoded, because a decoded batch with its runner takes about 4 KB where a one-file snapshot takes 600 bytes, and a
/// worker of a busy topic holds thousands of idle batches. Least recently used ones leave first: when the cache is
/// full, the oldest eighth goes in one pass, so eviction sorts once per `limit / 8` insertions instead of keeping
/// an order on every access.
struct RecentSnapshots {
    private struct Entry {
        var snapshot: Data
        var partition: Int32
        var used: UInt64
    }

    let limit: Int
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    var count: Int { entries.count }

    /// Keeps `snapshot` as the batch's newest recorded state, replacing an older one.
    mutating func put(_ snapshot: Data, batchId: String, partition: Int32) {
        guard limit > 0 else { return }
        clock += 1
        if entries.count >= limit, entries[batchId] == nil { evictOldest() }
        entries[batchId] = Entry(snapshot: snapshot, partition: partition, used: clock)
    }

    /// The batch's snapshot, taken out: the batch goes back into memory, and its next recorded state comes back here.
    mutating func take(_ batchId: String, partition: Int32) -> Data? {
        guard let entry = entries[batchId], entry.partition == partition else { return nil }
        entries[batchId] = nil
        return entry.snapshot
    }

    mutating func remove(_ batchId: String) {
        entries[batchId] = nil
    }

    /// Forgets the batches of a partition that left this worker.
    mutating func removePartition(_ partition: Int32) {
        entries = entries.filter { $0.value.partition != partition }
    }

    private mutating func evictOldest() {
        let leaving = max(1, limit / 8)
        let cutoff = entries.values.map(\.used).sorted()[min(leaving, entries.count) - 1]
        entries = entries.filter { $0.value.used > cutoff }
    }
}
