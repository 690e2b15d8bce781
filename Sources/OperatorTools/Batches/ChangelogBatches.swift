import Foundation
import KafkaIO
import UploadEngine
import Records

/// The batches the changelog topic holds (DESIGN §4.1), as a compacted reader sees them: the latest snapshot per key,
/// a tombstone removing its key. Fed records in offset order per partition; pure, so it is tested without Kafka.
public struct ChangelogBatches: Sendable {
    /// A batch read back from its latest snapshot, and where that snapshot is.
    public struct Entry: Sendable {
        public let batch: UploadBatch
        public let partition: Int32
        public let offset: Int64
    }

    private var latest: [String: (partition: Int32, offset: Int64, value: Data)] = [:]

    public init() {}

    /// Takes one changelog record: its value replaces the key's snapshot, a null value (tombstone) removes it.
    public mutating func take(_ record: KafkaRecord) {
        take(key: record.keyString, value: record.value, partition: record.partition, offset: record.offset)
    }

    /// Takes one changelog record by its parts; a record without a key, or whose key is no batch id (the fence
    /// records a restoring worker writes), is no batch's.
    public mutating func take(key: String?, value: Data?, partition: Int32, offset: Int64) {
        guard let key, RecordField.batchId.problem(with: key) == nil else { return }
        if let value {
            latest[key] = (partition, offset, value)
        } else {
            latest[key] = nil
        }
    }

    /// The batch `batchId` decoded with the engine's codec; nil when the changelog holds none, or only a cleared
    /// one (what a `clear` leaves: no files, no receiver, only the numbers a new batch of that id continues).
    ///
    /// - Throws: ``BatchSnapshot/DecodingError`` when its snapshot cannot be read.
    public func batch(_ batchId: String, configuration: EngineConfiguration) throws -> Entry? {
        guard let snapshot = latest[batchId] else { return nil }
        let restored = try BatchSnapshot.decode(snapshot.value, configuration: configuration)
        guard !restored.batch.isCleared else { return nil }
        return Entry(batch: restored.batch, partition: snapshot.partition, offset: snapshot.offset)
    }

    /// The batches decoded with the engine's codec, newest change first (ties by batch id), and the keys whose
    /// snapshot could not be read, with why.
    public func batches(configuration: EngineConfiguration) -> (batches: [Entry], unreadable: [(key: String, reason: String)]) {
        var batches: [Entry] = []
        var unreadable: [(key: String, reason: String)] = []
        for key in latest.keys {
            do {
                if let entry = try batch(key, configuration: configuration) { batches.append(entry) }
            } catch {
                unreadable.append((key, "\(error)"))
            }
        }
        batches.sort { left, right in
            let (l, r) = (left.batch.updatedAt ?? .distantPast, right.batch.updatedAt ?? .distantPast)
            return l != r ? l > r : left.batch.batchId < right.batch.batchId
        }
        return (batches, unreadable.sorted { $0.key < $1.key })
    }

    /// Reads every partition of `topic` to its end with `reader` (no consumer group, nothing committed).
    ///
    /// - Throws: ``KafkaError`` when the topic does not exist or a partition cannot be read.
    public static func read(topic: String, kafka: KafkaConfiguration) async throws -> ChangelogBatches {
        var changelog = ChangelogBatches()
        for record in try await TopicSnapshot.records(of: topic, kafka: kafka) { changelog.take(record) }
        return changelog
    }
}
