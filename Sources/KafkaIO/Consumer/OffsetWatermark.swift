import FIFOQueueModule

/// The contiguous-completion watermark of one partition: where it is safe to commit when records finish out of
/// order.
///
/// Offsets are registered as they are delivered (in increasing order, as Kafka delivers a partition) and marked
/// finished in any order. ``commitPosition`` is the offset of the first delivered record that is not finished
/// yet, or one past the last delivered offset when everything delivered is finished — Kafka's convention that
/// a committed offset names the next record to read. Tracking *delivered* offsets rather than integers means
/// gaps in a partition (compaction, transaction markers) never hold the watermark back.
///
/// A value type without I/O; the consumer keeps one per assigned partition and starts a fresh one on every
/// assignment.
public struct OffsetWatermark: Sendable, Hashable {
    private struct Slot: Sendable, Hashable {
        var offset: Int64
        var isFinished: Bool
    }

    /// Delivered offsets not behind the watermark, increasing; the front one is not finished.
    private var slots = FIFOQueue<Slot>()
    private var lastDelivered: Int64?
    /// The first offset delivered since the start or the last reset: where this owner started reading.
    private(set) var firstDelivered: Int64?

    /// A watermark with nothing delivered.
    public init() {}

    /// Registers a delivered offset; returns `false` (and changes nothing) for an offset not above the last one.
    @discardableResult
    public mutating func delivered(_ offset: Int64) -> Bool {
        if let lastDelivered, offset <= lastDelivered { return false }
        if lastDelivered == nil { firstDelivered = offset }
        lastDelivered = offset
        slots.append(Slot(offset: offset, isFinished: false))
        return true
    }

    /// Marks a delivered offset finished; returns `false` for an offset that is unknown or already finished.
    @discardableResult
    public mutating func finish(_ offset: Int64) -> Bool {
        guard let index = pendingIndex(of: offset), !slots[index].isFinished else { return false }
        slots[index].isFinished = true
        if index == 0 {
            var finished = 0
            while finished < slots.count, slots[finished].isFinished { finished += 1 }
            slots.dropFirst(finished)
        }
        return true
    }

    /// The offset to commit (next record to read), or `nil` when nothing has been delivered.
    public var commitPosition: Int64? {
        slots.first?.offset ?? nextToDeliver
    }

    /// The offset after the last delivered one: where reading goes on. `nil` when nothing has been delivered.
    public var nextToDeliver: Int64? {
        lastDelivered.map { $0 + 1 }
    }

    /// How many delivered offsets are neither finished nor behind the watermark.
    public var pendingCount: Int {
        slots.elements.reduce(0) { $0 + ($1.isFinished ? 0 : 1) }
    }

    /// Forgets everything, as after the partition was revoked and assigned again.
    public mutating func reset() {
        self = OffsetWatermark()
    }

    private func pendingIndex(of offset: Int64) -> Int? {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < slots.count && slots[low].offset == offset ? low : nil
    }
}
