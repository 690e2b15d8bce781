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
        /// The position last sent in a commit, confirmed or not: periodic commits do not send it again.
        var committed: Int64?
        /// The highest position the broker confirmed: what a revoke or a close must not leave behind.
        var confirmed: Int64?
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

    /// Each owned partition's committed position as far as this member knows: the last one the broker confirmed,
    /// else where this assignment started reading; nil before anything was delivered.
    var committedPositions: [(TopicPartition, Int64?)] {
        assignment.map { ($0, entries[$0]?.confirmed ?? entries[$0]?.watermark.firstDelivered) }
    }

    /// Where reading goes on in each owned, not-revoking partition that delivered something since its assignment.
    var readPositions: [(TopicPartition, Int64)] {
        assignment.compactMap { partition in
            guard let entry = entries[partition], !entry.isRevoking, let next = entry.watermark.nextToDeliver else { return nil }
            return (partition, next)
        }
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

    /// Whether `record` belongs to the current assignment of its partition and that partition is not being revoked:
    /// whether applying it now is still this member's business.
    func owns(_ record: KafkaRecord) -> Bool {
        guard let entry = entries[record.topicPartition] else { return false }
        return entry.generation == record.generation && !entry.isRevoking
    }

    /// Marks a delivered record finished; `false` if its partition is no longer owned by the same assignment.
    @discardableResult
    mutating func finish(_ record: RecordPosition) -> Bool {
        let key = record.topicPartition
        guard entries[key]?.generation == record.generation else { return false }
        return entries[key]!.watermark.finish(record.offset)
    }

    /// Which positions a commit sends.
    enum CommitChoice {
        /// Every owned partition's position (an explicit commit).
        case all
        /// Positions not sent yet (the periodic commit): one in flight is not sent again.
        case changed
        /// Positions the broker has not confirmed (revoke, close): one whose earlier commit is still in flight, or
        /// failed, is sent again, so a partition is never released with its last commit unanswered.
        case unconfirmed
    }

    /// Positions to commit and records them as sent. `partitions` limits the choice (`nil`: all owned).
    ///
    /// `.changed` and `.unconfirmed` skip partitions that have not moved past where this assignment started
    /// reading: such a commit stores nothing new, and every commit sent while the group rebalances risks an
    /// `ILLEGAL_GENERATION` answer, which librdkafka treats as a lost assignment.
    mutating func takeCommitPositions(of partitions: Set<TopicPartition>? = nil,
                                      _ choice: CommitChoice) -> [(TopicPartition, Int64)] {
        var result: [(TopicPartition, Int64)] = []
        for (key, entry) in entries {
            guard partitions?.contains(key) ?? true, let position = entry.watermark.commitPosition else { continue }
            switch choice {
            case .all: break
            case .changed: if entry.committed == position { continue }
            case .unconfirmed: if entry.confirmed == position { continue }
            }
            if choice != .all, position == entry.watermark.firstDelivered { continue }
            entries[key]!.committed = position
            result.append((key, position))
        }
        return result.sorted { ($0.0.topic, $0.0.partition) < ($1.0.topic, $1.0.partition) }
    }

    /// Forgets positions whose commit failed, so the next commit sends them again.
    mutating func commitFailed(_ positions: [(TopicPartition, Int64)]) {
        for (key, position) in positions where entries[key]?.committed == position {
            entries[key]!.committed = entries[key]!.confirmed
        }
    }

    /// Records what the broker confirmed.
    mutating func commitConfirmed(_ positions: [(TopicPartition, Int64)]) {
        for (key, position) in positions where entries[key] != nil {
            entries[key]!.confirmed = max(entries[key]!.confirmed ?? position, position)
        }
    }
}
