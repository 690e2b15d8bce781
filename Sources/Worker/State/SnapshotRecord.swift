import Foundation
import KafkaIO

/// The changelog's records: key = batch id, value = the snapshot (null: a tombstone), produced to the partition of
/// the jobs topic the batch's records arrive on — never through a partitioner, which could hash the key elsewhere.
///
/// Headers repeat what a restore needs without decoding the snapshot: the writer's fencing epoch, and whether the
/// batch has work to resume and when it last changed (the store's columns).
///
/// Fencing (§4.1): a worker that restores a partition ends its restore by writing a fence record to it; the offset
/// Kafka gives that record is the worker's epoch for the partition, and every snapshot it writes there carries it.
/// Offsets only grow, so an owner's epoch is above that of every owner before it — across group generations, an
/// expired group or a new `kafka.groupId` alike — and a snapshot with an older epoch than one already read for its
/// batch is a zombie's.
enum SnapshotRecord {
    static let generationHeader = "attache.generation"
    static let pendingHeader = "attache.pending"
    static let updatedHeader = "attache.updated"
    /// The names as bytes, made once: every snapshot carries them.
    private static let generationName = Array(generationHeader.utf8)
    private static let pendingName = Array(pendingHeader.utf8)
    private static let updatedName = Array(updatedHeader.utf8)

    /// The key of the fence records: a control character, which no batch id holds (§2.1), so it names no batch.
    static let fenceKey = "\u{1}attache.fence"

    /// The epoch a fence record at `offset` claims: above 2³², so above every group generation (an `Int32`) that
    /// snapshots written before epochs carry — such a snapshot is older than any written under an epoch.
    static func epoch(fenceOffset offset: Int64) -> Int64 { (1 << 32) + offset }

    /// The record that claims a writer's epoch for a partition (by its offset); a restore skips it.
    static func fence(topic: String, partition: Int32, writer: String) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: fenceKey, value: Data(writer.utf8), partition: partition)
    }

    static func snapshot(topic: String, batchId: String, partition: Int32, bytes: Data, generation: Int64, pending: Bool,
                         updatedAt: Int64) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: batchId, value: bytes, headers: [
            KafkaHeader(rawName: generationName, Data(String(generation).utf8)),
            KafkaHeader(rawName: pendingName, Data((pending ? "1" : "0").utf8)),
            KafkaHeader(rawName: updatedName, Data(String(updatedAt).utf8)),
        ], partition: partition)
    }

    /// A tombstone carries its writer's epoch too: a zombie's expiry landing after the next owner's snapshot of
    /// the batch is fenced like its snapshots are, instead of deleting the batch the next owner goes on with.
    static func tombstone(topic: String, batchId: String, partition: Int32, generation: Int64) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: batchId, value: nil, headers: [
            KafkaHeader(rawName: generationName, Data(String(generation).utf8)),
        ], partition: partition)
    }

    /// The writer's epoch a record carries, snapshot or tombstone; nil when it carries none (a tombstone written
    /// before tombstones carried one, or a record not written by Attache).
    static func generation(of record: KafkaRecord) -> Int64? {
        record.headers.last { $0.name == generationHeader }?.stringValue.flatMap(Int64.init)
    }

    /// What a restore reads from one changelog record.
    struct Header: Sendable {
        /// The writer's fencing epoch (older snapshots: its group generation, which is always lower).
        var generation: Int64
        var pending: Bool
        var updatedAt: Int64
    }

    /// The headers of a record, or nil when they are missing or malformed (a record not written by Attache).
    static func header(of record: KafkaRecord) -> Header? {
        func text(_ name: String) -> String? {
            record.headers.last { $0.name == name }?.stringValue
        }
        guard let generation = text(generationHeader).flatMap(Int64.init), let pending = text(pendingHeader),
              let updated = text(updatedHeader).flatMap(Int64.init) else { return nil }
        return Header(generation: generation, pending: pending == "1", updatedAt: updated)
    }
}
