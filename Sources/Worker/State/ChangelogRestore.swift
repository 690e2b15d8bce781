import BatchStore
import Foundation
import KafkaIO
import UploadEngine
import WireFormat

/// Brings a partition's local store up to the changelog's end, then hands back the batches with work to resume.
///
/// The store is read from its checkpoint (only the tail a restart has not seen); a store that is ahead of the topic
/// (the topic was recreated) is dropped and rebuilt from the start. Snapshots are fenced by their writer's epoch
/// (``SnapshotRecord``): a record from an older epoch than one already seen for its batch — a zombie that lost the
/// partition without knowing — is ignored, so it cannot roll the batch back. A restore ends by claiming this
/// worker's own epoch, above every one it read.
struct ChangelogRestore: Sendable {
    let topic: String
    let reader: KafkaPartitionReader
    let state: ChangelogBatchState
    let configuration: EngineConfiguration
    let logger: Logger

    /// What one restore did.
    struct Outcome: Sendable {
        /// Batches with files pending or a send under way, decoded, to be resumed.
        var pending: [UploadBatch]
        var recordsRead: Int
        var fenced: Int
        /// The store was missing this partition, or ahead of the topic, and was rebuilt from its start.
        var rebuilt: Bool
    }

    func restore(partition: Int32) async throws -> Outcome {
        try await state.store.bulkLoading { try await restoreLoading(partition: partition) }
    }

    private func restoreLoading(partition: Int32) async throws -> Outcome {
        let store = state.store
        var checkpoint = try store.checkpoint(partition: partition)
        var read = 0
        var fenced = 0
        var rebuilt = checkpoint == nil
        var summary: PartitionReadSummary?
        while summary == nil {
            let fromScratch = checkpoint == nil
            var newest: [String: Int64] = [:]
            let outcome = try await reader.readToEnd(topic: topic, partition: partition, from: checkpoint ?? 0) { records in
                // A revoke calls the restore off: nothing more is written for a partition this worker does not own.
                try Task.checkCancellation()
                var changes: [BatchChange] = []
                changes.reserveCapacity(records.count)
                for record in records {
                    read += 1
                    guard let key = record.key, let batchId = String(data: key, encoding: .utf8),
                          batchId != SnapshotRecord.fenceKey else { continue }
                    // Snapshots carry their writer's epoch in their headers, and so do tombstones since they too
                    // could be a zombie's (one without is from before: applied as it comes).
                    let header = record.value == nil ? nil : SnapshotRecord.header(of: record)
                    if record.value != nil && header == nil {
                        logger.warn("a changelog record without Attache's headers was skipped",
                                    ["partition": String(partition), "offset": String(record.offset)])
                        continue
                    }
                    let generation = header?.generation ?? SnapshotRecord.generation(of: record)
                    if let generation {
                        let known = newest[batchId] ?? (fromScratch ? nil : storedGeneration(batchId, partition: partition))
                        if let known, generation < known {
                            fenced += 1
                            continue
                        }
                    }
                    // A tombstone's epoch is remembered within the pass too: a zombie's snapshot after it is fenced.
                    newest[batchId] = generation
                    guard let value = record.value, let header else {
                        changes.append(.tombstone(batchId: batchId, offset: record.offset))
                        continue
                    }
                    changes.append(BatchChange(batchId: batchId, snapshot: value, offset: record.offset, pending: header.pending,
                                               updatedAt: header.updatedAt))
                }
                if let last = records.last { try store.apply(changes, partition: partition, checkpoint: last.offset + 1) }
            }
            switch outcome {
            case .completed(let completed):
                summary = completed
            case .aheadOfTopic(let end):
                logger.warn("the local batch store is ahead of the changelog; rebuilding the partition from the topic",
                            ["partition": String(partition), "checkpoint": String(checkpoint ?? 0), "end": String(end)])
                try store.dropPartition(partition)
                checkpoint = nil
                rebuilt = true
            }
        }
        let end = summary?.endOffset ?? 0
        try Task.checkCancellation()
        let fence = try await state.writeFence(partition: partition)
        // Compaction may leave the last offsets empty: the checkpoint is the end read, not the last record — or just
        // past the fence record when that came right after it (nothing was written in between for a restore to see).
        let restoredThrough = fence == end ? end + 1 : end
        try store.apply([], partition: partition, checkpoint: restoredThrough)
        state.restored(partition: partition, through: restoredThrough, epoch: SnapshotRecord.epoch(fenceOffset: fence))
        var pending: [UploadBatch] = []
        for row in try store.pendingBatches(partition: partition) {
            do {
                pending.append(try BatchSnapshot.decode(row.snapshot, configuration: configuration).batch)
            } catch {
                logger.error("a batch snapshot could not be read; its batch is not resumed",
                             ["batchId": row.batchId, "partition": String(partition), "error": "\(error)"])
            }
        }
        return Outcome(pending: pending, recordsRead: read, fenced: fenced, rebuilt: rebuilt)
    }

    /// The writer epoch of the batch's stored snapshot, for fencing the first tail record about it.
    private func storedGeneration(_ batchId: String, partition: Int32) -> Int64? {
        guard let row = try? state.store.batch(partition: partition, batchId: batchId),
              case .int(let generation) = (try? JSONParser.parse(row.snapshot))?["writerGeneration"] else { return nil }
        return generation
    }
}
