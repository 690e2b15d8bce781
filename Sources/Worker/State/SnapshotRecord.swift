import Foundation
import KafkaIO

/// The changelog's records: key = batch id, value = the snapshot (null: a tombstone), produced to the partition of
/// the jobs topic the batch's records arrive on — never through a partitioner, which could hash the key elsewhere.
///
/// Headers repeat what a restore needs without decoding the snapshot: the writer's group generation (fencing), and
/// whether the batch has work to resume and when it last changed (the store's columns).
enum SnapshotRecord {
    static let generationHeader = "attache.generation"
    static let pendingHeader = "attache.pending"
    static let updatedHeader = "attache.updated"
    /// The names as bytes, made once: every snapshot carries them.
    private static let generationName = Array(generationHeader.utf8)
    private static let pendingName = Array(pendingHeader.utf8)
    private static let updatedName = Array(updatedHeader.utf8)

    static func snapshot(topic: String, batchId: String, partition: Int32, bytes: Data, generation: Int32, pending: Bool,
                         updatedAt: Int64) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: batchId, value: bytes, headers: [
            KafkaHeader(rawName: generationName, Data(String(generation).utf8)),
            KafkaHeader(rawName: pendingName, Data((pending ? "1" : "0").utf8)),
            KafkaHeader(rawName: updatedName, Data(String(updatedAt).utf8)),
        ], partition: partition)
    }

    static func tombstone(topic: String, batchId: String, partition: Int32) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: batchId, value: nil, partition: partition)
    }

    /// What a restore reads from one changelog record.
    struct Header: Sendable {
        var generation: Int32
        var pending: Bool
        var updatedAt: Int64
    }

    /// The headers of a record, or nil when they are missing or malformed (a record not written by Attache).
    static func header(of record: KafkaRecord) -> Header? {
        func text(_ name: String) -> String? {
            record.headers.last { $0.name == name }?.stringValue
        }
        guard let generation = text(generationHeader).flatMap(Int32.init), let pending = text(pendingHeader),
              let updated = text(updatedHeader).flatMap(Int64.init) else { return nil }
        return Header(generation: generation, pending: pending == "1", updatedAt: updated)
    }
}
