/// Which (partition, batch id) rows the store may hold: a Bloom filter that answers "certainly not" for most batch
/// ids it never saw, so a record for a new batch — every upload job of a fresh batch — looks the store up without
/// a SQLite query, and without waiting behind a write transaction for the connection.
///
/// Invariant: every row the store holds was inserted here before its transaction began, so `mayContain` is never
/// false for a row a reader could find. Rows deleted since (tombstones, dropped partitions) stay in the filter, as do
/// rows replaced: they only cost the query they would have cost anyway, until the next rebuild.
///
/// 16 bits a row and 4 probes (false positives about 0.2 %) at full capacity; capacity doubles from the rows the
/// store holds when it is reached, so memory stays within 4 bytes a row.
struct StoredRowFilter {
    static let bitsPerRow = 16
    static let probes = 4

    private var words: [UInt64]
    /// Insertions since the filter was built from the table, rows rewritten included.
    private(set) var inserted = 0
    let capacity: Int

    /// An empty filter with room for `capacity` rows.
    init(capacity: Int) {
        self.capacity = max(capacity, 1024)
        words = [UInt64](repeating: 0, count: (self.capacity * Self.bitsPerRow + 63) / 64)
    }

    var isFull: Bool { inserted > capacity }

    mutating func insert(partition: Int32, batchId: String) {
        let (first, second) = Self.hashes(partition, batchId)
        set(first, second)
        inserted += 1
    }

    /// Inserts a row read from the table: its id as the UTF-8 bytes SQLite holds.
    mutating func insert(partition: Int32, batchIdBytes: UnsafeRawBufferPointer) {
        let (first, second) = Self.hashes(partition, batchIdBytes)
        set(first, second)
        inserted += 1
    }

    func mayContain(partition: Int32, batchId: String) -> Bool {
        let (first, second) = Self.hashes(partition, batchId)
        let bitCount = UInt64(words.count * 64)
        for probe in 0..<UInt64(Self.probes) {
            let bit = (first &+ probe &* second) % bitCount
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }

    private mutating func set(_ first: UInt64, _ second: UInt64) {
        let bitCount = UInt64(words.count * 64)
        for probe in 0..<UInt64(Self.probes) {
            let bit = (first &+ probe &* second) % bitCount
            words[Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    /// Two hashes of the id's UTF-8 bytes (as SQLite holds them) and the partition; probes are `first + k·second`.
    private static func hashes(_ partition: Int32, _ batchId: String) -> (UInt64, UInt64) {
        var id = batchId
        return id.withUTF8 { hashes(partition, UnsafeRawBufferPointer($0)) }
    }

    private static func hashes(_ partition: Int32, _ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var hasher = Hasher()
        hasher.combine(partition)
        hasher.combine(bytes: bytes)
        let first = UInt64(bitPattern: Int64(hasher.finalize()))
        // The second from the first, odd so that the probes never repeat a bit in a power-of-two-free table.
        var mixed = first &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 29
        return (first, mixed | 1)
    }
}
