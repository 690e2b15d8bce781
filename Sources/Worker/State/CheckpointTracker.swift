/// How far a partition's local store is restored in the changelog: the next offset to read. The worker's own
/// snapshots move it on as they are delivered, but only over a contiguous run: a record another writer put in
/// between (a zombie, fenced at the next restore) holds it back, so that restore reads it and decides.
struct CheckpointTracker: Sendable {
    private(set) var next: Int64
    /// Offsets delivered beyond `next`, waiting for the gap before them to close.
    private var ahead: Set<Int64> = []

    init(next: Int64) {
        self.next = next
    }

    /// Notes that the record at `offset` is applied to the store; returns the checkpoint.
    mutating func advance(past offset: Int64) -> Int64 {
        if offset == next {
            next += 1
            while ahead.remove(next) != nil { next += 1 }
        } else if offset > next {
            ahead.insert(offset)
        }
        return next
    }
}
