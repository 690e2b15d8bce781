/// How far a read of one partition has come towards the end offset captured when it began.
///
/// Invariant: every offset below ``nextOffset`` was either handed over or does not exist. The read is complete
/// when the next offset to read reaches the end — not when a count of records is reached: a compacted topic has
/// gaps, and its last offsets may be gone too, which the end-of-partition report (at the high watermark) settles.
/// Pure: the reading thread feeds it what librdkafka delivers.
struct PartitionReadProgress: Sendable, Hashable {
    /// The offset reading began at.
    let startOffset: Int64
    /// The end offset (high watermark) captured when the read began; nothing at or past it is handed over.
    let endOffset: Int64
    /// The lowest offset not read yet.
    private(set) var nextOffset: Int64
    /// Records handed over so far.
    private(set) var recordsRead = 0
    /// Whether the end was reached: a record at or past `endOffset - 1`, or the partition's end at or past `endOffset`.
    private(set) var isComplete: Bool

    /// A read of `[startOffset, endOffset)`; complete at once when that range is empty.
    init(startOffset: Int64, endOffset: Int64) {
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.nextOffset = startOffset
        self.isComplete = startOffset >= endOffset
    }

    /// Takes a fetched record's offset; returns whether the record is handed over. Records past the captured end
    /// (appended after the read began) complete the read without being handed over; repeats are dropped.
    mutating func take(_ offset: Int64) -> Bool {
        guard !isComplete, offset >= nextOffset else { return false }
        guard offset < endOffset else {
            isComplete = true
            return false
        }
        nextOffset = offset + 1
        recordsRead += 1
        isComplete = nextOffset >= endOffset
        return true
    }

    /// Takes librdkafka's end-of-partition report: it fetched everything up to `offset` (the high watermark then).
    mutating func reachedEnd(at offset: Int64) {
        guard offset >= endOffset else { return }
        nextOffset = max(nextOffset, endOffset)
        isComplete = true
    }
}

extension PartitionReadProgress {
    /// A read from `offset` up to the high watermark `high`, starting at the log start `low` when that has moved past
    /// `offset`; `nil` when `offset` lies past `high` (the caller's copy is ahead of the topic).
    static func toEnd(from offset: Int64, low: Int64, high: Int64) -> PartitionReadProgress? {
        guard offset <= high else { return nil }
        return PartitionReadProgress(startOffset: min(max(offset, low), high), endOffset: high)
    }

    /// A read of the record at `offset` alone: empty when the partition no longer (or not yet) holds that offset.
    /// The first record fetched completes it: at `offset` it is handed over, past it (compacted away) it is not.
    static func single(at offset: Int64, low: Int64, high: Int64) -> PartitionReadProgress {
        guard offset >= low, offset < high else { return PartitionReadProgress(startOffset: offset, endOffset: offset) }
        return PartitionReadProgress(startOffset: offset, endOffset: offset + 1)
    }
}
