/// The partitions a consumer owns right now, each with its watermark and the last position sent for commit.
///
/// Pure state: the consumer keeps it behind a mutex, the poll thread feeds it deliveries and rebalances, and
/// readers mark records finished. Every assignment of a partition gets a new generation, so a record finished
/// after its partition was revoked (and perhaps assigned again) cannot move the new owner's watermark.
struct AssignmentLedger: Sendable {
    /// One owned partition.
    struct Entry: Sendable {
        /// Which assignment of the partition this is.
        var generation: UInt64
        /// Delivered and finished offsets since the assignment.
        var watermark = OffsetWatermark()
        /// The position last sent in a commit (optimistically, before the broker confirmed it).
        var committed: Int64?
        /// Set while the partition is being revoked: new deliveries are dropped, finishes still count.
        var isRevoking = false
    }

    /// The owned partitions.
    private(set) var entries: [TopicPartition: Entry] = [:]
    private var lastGeneration: UInt64 = 0

    /// The owned partitions, sorted.
    var assignment: [TopicPartition] {
        entries.keys.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
    }

    /// Takes ownership of `partitions`, each with a fresh watermark and a new generation.
    mutating func assign(_ partitions: [TopicPartition]) {
        for partition in partitions {
            lastGeneration += 1
            entries[partition] = Entry(generation: lastGeneration)
        }
    }

    /// Stops accepting deliveries for `partitions` while their work is wound down.
    mutating func beginRevoke(_ partitions: [TopicPartition]) {
        for partition in partitions { entries[partition]?.isRevoking = true }
    }

    /// Gives up `partitions`; later finishes of their records are ignored.
    mutating func release(_ partitions: [TopicPartition]) {
        for partition in partitions { entries[partition] = nil }
    }

    /// Registers delivered records and stamps them with their partition's generation. Returns the records to
    /// hand to the reader: those of owned, not-revoking partitions whose offset was not delivered before.
    mutating func accept(_ records: [KafkaRecord]) -> [KafkaRecord] {
        var accepted: [KafkaRecord] = []
        accepted.reserveCapacity(records.count)
        for var record in records {
            let key = record.topicPartition
            guard let entry = entries[key], !entry.isRevoking,
                  entries[key]!.watermark.delivered(record.offset) else { continue }
            record.generation = entry.generation
            accepted.append(record)
        }
        return accepted
    }

    /// Marks a delivered record finished; `false` if its partition is no longer owned by the same assignment.
    @discardableResult
    mutating func finish(_ record: KafkaRecord) -> Bool {
        let key = record.topicPartition
        guard entries[key]?.generation == record.generation else { return false }
        return entries[key]!.watermark.finish(record.offset)
    }

    /// Positions to commit and records them as sent. `partitions` limits the choice (`nil`: all owned).
    ///
    /// `onlyChanged` skips partitions whose position was already sent and partitions that have not moved past
    /// where this assignment started reading: such a commit stores nothing new, and every commit sent while the
    /// group rebalances risks an `ILLEGAL_GENERATION` answer, which librdkafka treats as a lost assignment.
    mutating func takeCommitPositions(of partitions: Set<TopicPartition>? = nil,
                                      onlyChanged: Bool) -> [(TopicPartition, Int64)] {
        var result: [(TopicPartition, Int64)] = []
        for (key, entry) in entries {
            guard partitions?.contains(key) ?? true, let position = entry.watermark.commitPosition else { continue }
            if onlyChanged, entry.committed == position { continue }
            if onlyChanged, entry.committed == nil, position == entry.watermark.firstDelivered { continue }
            entries[key]!.committed = position
            result.append((key, position))
        }
        return result.sorted { ($0.0.topic, $0.0.partition) < ($1.0.topic, $1.0.partition) }
    }

    /// Forgets positions whose commit failed, so the next commit sends them again.
    mutating func commitFailed(_ positions: [(TopicPartition, Int64)]) {
        for (key, position) in positions where entries[key]?.committed == position {
            entries[key]!.committed = nil
        }
    }
}
