import Foundation

/// The most recently recorded snapshots of batches, encoded, up to `worker.maxCachedBatches` of them and
/// `state.cacheMax` bytes of slabs: the idle batches held in memory (DESIGN §4.1). A record for one of them decodes
/// it from here instead of reading the store. Both bounds count: ten thousand snapshots of `events.maxBytes` each
/// would otherwise be gigabytes.
///
/// Memory is the point. A decoded batch with its runner takes about 4 KB where a one-file snapshot takes 600 bytes
/// (under 300 as kept here: ``SnapshotPacking``); and ten thousand small long-lived allocations, scattered among the short-lived ones of every job, pin the pages
/// around them, so freed memory could not go back to the system. So snapshots (with their batch ids) are appended
/// to slabs — an eighth of the limit's batches, at most 1 MiB each — and indexed by a hash of the id: per batch, the
/// bytes and one index entry. The oldest slab leaves whole, taking its batches with it, when the cache is over its
/// count — least recently recorded first, an eighth at a time — or when holes (snapshots taken out or replaced) make
/// the slabs twice the size of what they hold.
struct RecentSnapshots {
    /// Twenty-four bytes instead of forty: there is one per cached batch. A slab and its snapshots stay far below
    /// 2 GiB; slab numbers only grow, so they keep a whole word.
    private struct Entry {
        var slab: Int
        private var storedOffset: Int32
        private var storedIdLength: Int32
        private var storedLength: Int32
        var partition: Int32

        init(slab: Int, offset: Int, idLength: Int, length: Int, partition: Int32) {
            self.slab = slab
            storedOffset = Int32(offset)
            storedIdLength = Int32(idLength)
            storedLength = Int32(length)
            self.partition = partition
        }

        var offset: Int { Int(storedOffset) }
        var idLength: Int { Int(storedIdLength) }
        var length: Int { Int(storedLength) }
    }

    private struct Slab {
        var bytes: [UInt8] = []
        /// Snapshots appended, and those still live.
        var filled = 0
        var live = 0
        var liveBytes = 0
    }

    static let slabBytes = 1 << 20

    /// A slab's size: at most a quarter of the byte limit, so that the limit holds several and the oldest can go.
    private var slabBytes: Int { min(Self.slabBytes, max(1, byteLimit / 4)) }

    let limit: Int
    /// Bytes the slabs may hold, their slack and holes included; the oldest slabs leave to keep within it.
    let byteLimit: Int
    private let perSlab: Int
    /// By a hash of (batch id, partition); the id is kept in the slab before the snapshot, and checked on a take.
    private var entries: [Int: Entry] = [:]
    /// By age: the key of the oldest is the smallest.
    private var slabs: [Int: Slab] = [:]
    private var newest = 0
    private var oldest = 0

    init(limit: Int, byteLimit: Int = .max) {
        self.limit = max(0, limit)
        self.byteLimit = max(0, byteLimit)
        self.perSlab = max(1, limit / 8)
    }

    var count: Int { entries.count }

    /// Bytes held in slabs, holes included.
    var heldBytes: Int { slabs.values.reduce(0) { $0 + $1.bytes.capacity } }

    /// A snapshot in the cache's compact form (``SnapshotPacking``). Packing is most of what keeping a snapshot
    /// costs — a pass over every byte — and needs nothing of the cache, so it is done before the cache's owner takes
    /// its lock: done inside, it held the lock some 15,000 instructions a snapshot, and the intake and the producer's
    /// delivery thread spun on it.
    struct Packed: Sendable {
        fileprivate let bytes: [UInt8]

        init(_ snapshot: Data) {
            var bytes: [UInt8] = []
            SnapshotPacking.pack(snapshot, into: &bytes)
            self.bytes = bytes
        }

        fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

        /// The snapshot it was packed from.
        var snapshot: Data { SnapshotPacking.unpack(bytes[...]) }
    }

    /// Keeps a snapshot packed beforehand as the batch's newest recorded state, replacing an older one.
    mutating func put(_ snapshot: Packed, batchId: String, partition: Int32) {
        let key = Self.key(batchId, partition)
        if let old = entries.removeValue(forKey: key) { release(old) }
        guard limit > 0 else { return }
        let idLength = batchId.utf8.count
        let packed = snapshot.bytes
        let size = idLength + packed.count
        // One that could never fit is not kept: the store gives it back.
        guard size <= byteLimit else { return }
        if slabs[newest].map({ $0.filled >= perSlab || $0.bytes.count + size > max(slabBytes, $0.bytes.capacity) }) ?? true {
            openSlab(fitting: size)
        }
        // Taken out and put back once: changed in place through the table, each change was an access of its own.
        guard var slab = slabs.removeValue(forKey: newest) else { return }
        let offset = slab.bytes.count
        slab.bytes.append(contentsOf: batchId.utf8)
        slab.bytes.append(contentsOf: packed)
        slab.live += 1
        slab.filled += 1
        slab.liveBytes += size
        slabs[newest] = slab
        entries[key] = Entry(slab: newest, offset: offset, idLength: idLength, length: packed.count, partition: partition)
        while entries.count > limit { dropOldestSlab() }
        while heldBytes > byteLimit, !entries.isEmpty { dropOldestSlab() }
    }

    /// The batch's snapshot, taken out still packed (``Packed/snapshot`` unpacks it, once the lock is let go): the
    /// batch goes back into memory, and its next recorded state comes back here.
    mutating func take(_ batchId: String, partition: Int32) -> Packed? {
        let key = Self.key(batchId, partition)
        guard let entry = entries[key], let slab = slabs[entry.slab] else { return nil }
        let idEnd = entry.offset + entry.idLength
        guard slab.bytes[entry.offset..<idEnd].elementsEqual(batchId.utf8) else { return nil }
        // Copied out: a slice would share the slab's storage, and the slab's next append would copy all of it.
        let packed = Packed(bytes: Array(slab.bytes[idEnd..<idEnd + entry.length]))
        entries[key] = nil
        release(entry)
        return packed
    }

    mutating func remove(_ batchId: String, partition: Int32) {
        if let entry = entries.removeValue(forKey: Self.key(batchId, partition)) { release(entry) }
    }

    /// Forgets the batches of a partition that left this worker.
    mutating func removePartition(_ partition: Int32) {
        for (key, entry) in entries where entry.partition == partition {
            entries[key] = nil
            release(entry)
        }
    }

    private static func key(_ batchId: String, _ partition: Int32) -> Int {
        var hasher = Hasher()
        hasher.combine(batchId)
        hasher.combine(partition)
        return hasher.finalize()
    }

    private mutating func release(_ entry: Entry) {
        guard var slab = slabs[entry.slab] else { return }
        slab.live -= 1
        slab.liveBytes -= entry.idLength + entry.length
        // An empty slab goes at once, unless it is the one being filled.
        if slab.live == 0 && entry.slab != newest {
            slabs[entry.slab] = nil
        } else {
            slabs[entry.slab] = slab
        }
    }

    private mutating func openSlab(fitting size: Int) {
        if slabs[newest]?.live == 0 { slabs[newest] = nil }
        // A full slab keeps its bytes for as long as its batches stay: without the slack reserved for its last ones.
        if let full = slabs[newest], full.bytes.capacity - full.bytes.count > full.bytes.count / 32 {
            slabs[newest]!.bytes = [UInt8](unsafeUninitializedCapacity: full.bytes.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: full.bytes)
            }
        }
        while slabs.count >= 2, heldBytes > 2 * slabs.values.reduce(0, { $0 + $1.liveBytes }) + 2 * slabBytes {
            dropOldestSlab()
        }
        // Sized for a slab's share of batches of the average size so far (1 KiB before any), so that neither growth
        // nor slack doubles it.
        let live = slabs.values.reduce(into: (count: 0, bytes: 0)) { $0.count += $1.live; $0.bytes += $1.liveBytes }
        let average = live.count > 0 ? live.bytes / live.count : 1024
        newest += 1
        var slab = Slab()
        slab.bytes.reserveCapacity(max(size, min(slabBytes, perSlab * average * 9 / 8)))
        slabs[newest] = slab
    }

    private mutating func dropOldestSlab() {
        while oldest < newest && slabs[oldest] == nil { oldest += 1 }
        guard slabs[oldest] != nil else { return }
        let leaving = oldest
        entries = entries.filter { $0.value.slab != leaving }
        slabs[leaving] = nil
        if leaving == newest { newest += 1 }
    }
}
