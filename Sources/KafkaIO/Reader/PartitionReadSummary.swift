/// What a completed ``KafkaPartitionReader/readToEnd(topic:partition:from:handle:)`` read.
public struct PartitionReadSummary: Sendable, Hashable {
    /// The offset reading began at: the offset asked for, or the log start when that had moved past it.
    public var startOffset: Int64
    /// The partition's end offset (high watermark) when the read began; every record below it was handed over,
    /// none at or past it. A local copy that has read this far is up to date with the topic as it was then.
    public var endOffset: Int64
    /// The partition's log start offset (low watermark) when the read began.
    public var lowWatermark: Int64
    /// How many records were handed over; fewer than `endOffset - startOffset` where compaction left gaps.
    public var recordsRead: Int

    /// Describes a completed read.
    public init(startOffset: Int64, endOffset: Int64, lowWatermark: Int64, recordsRead: Int) {
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.lowWatermark = lowWatermark
        self.recordsRead = recordsRead
    }
}
