/// The order in which batches were last touched, to forget the stalest when the model holds too many.
///
/// Touching appends `(stamp, batchId)` and remembers the batch's latest stamp; the stalest batch is the first entry
/// whose stamp is still its batch's latest (older entries of a batch touched again are skipped when met). Entries
/// left behind are compacted away once they outnumber the live ones, keeping their order, so touching and evicting
/// are O(1) amortised and the memory stays within twice the batches held.
struct BatchRecency: Sendable, Hashable {
    private var entries: [(stamp: UInt64, batchId: String)] = []
    private var head = 0
    private var latest: [String: UInt64] = [:]
    private var nextStamp: UInt64 = 0

    static func == (left: BatchRecency, right: BatchRecency) -> Bool { left.latest == right.latest && left.order == right.order }
    func hash(into hasher: inout Hasher) { hasher.combine(latest) }

    /// The batches from stalest to freshest (for tests).
    var order: [String] {
        entries[head...].filter { latest[$0.batchId] == $0.stamp }.map(\.batchId)
    }

    var count: Int { latest.count }

    /// Marks the batch as the freshest.
    mutating func touch(_ batchId: String) {
        nextStamp += 1
        latest[batchId] = nextStamp
        entries.append((nextStamp, batchId))
        if entries.count - head > 2 * latest.count + 64 { compact() }
    }

    /// Forgets a batch (it was removed for another reason).
    mutating func forget(_ batchId: String) {
        latest[batchId] = nil
    }

    /// Removes and returns the stalest batch.
    mutating func popStalest() -> String? {
        while head < entries.count {
            let entry = entries[head]
            head += 1
            if latest[entry.batchId] == entry.stamp {
                latest[entry.batchId] = nil
                return entry.batchId
            }
        }
        return nil
    }

    private mutating func compact() {
        entries = entries[head...].filter { latest[$0.batchId] == $0.stamp }
        head = 0
    }
}
