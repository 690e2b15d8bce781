import BatchStore
import Foundation
import KafkaIO
import Records
import S3
import UploadEngine

/// The worker's durable batch state (§4.1) put together: the local store at `staging.dir/state.db`, the changelog
/// writer, the partition reader its restores and inline read-backs use, and what happens to a partition's state
/// when it leaves.
struct DurableState: Sendable {
    let store: BatchStateStore
    let reader: KafkaPartitionReader
    let state: ChangelogBatchState
    let restore: ChangelogRestore
    let logger: Logger
    let metrics: WorkerMetrics

    static func open(configuration: AttacheConfiguration, kafka: KafkaConfiguration, producer: any RecordProducer, logger: Logger,
                     metrics: WorkerMetrics, writer: String,
                     eventsDelivered: @escaping @Sendable (@escaping @Sendable (EventsOutcome) -> Void) -> Void,
                     onLoss: @escaping @Sendable (String) -> Void) throws -> DurableState {
        let path = URL(fileURLWithPath: configuration.staging.dir).appendingPathComponent("state.db").path
        let (store, opening) = try BatchStateStore.open(path: path)
        switch opening {
        case .opened: logger.info("batch store opened", ["path": path])
        case .created: logger.info("batch store created; partitions are restored from the changelog", ["path": path])
        case .rebuilt(let reason):
            metrics.storeFailed(.open)
            logger.warn("batch store unreadable; recreated, partitions are restored from the changelog", ["path": path, "reason": reason])
        }
        var readerKafka = kafka
        // A snapshot of events.maxBytes must be fetchable in one go.
        readerKafka.properties["fetch.message.max.bytes"] = readerKafka.properties["fetch.message.max.bytes"]
            ?? String(max(4 << 20, configuration.events.maxBytes + 64 * 1024))
        let reader = try KafkaPartitionReader(configuration: readerKafka)
        let state = ChangelogBatchState(topic: configuration.kafka.batchesTopic, store: store, producer: producer,
                                        configuration: configuration.engine, flushInterval: configuration.state.flushInterval,
                                        maxBytes: configuration.events.maxBytes, cachedBatches: configuration.worker.maxCachedBatches,
                                        cachedBytes: Int(clamping: configuration.state.cacheMax),
                                        writer: writer, eventsDelivered: eventsDelivered, logger: logger, metrics: metrics,
                                        onLoss: onLoss)
        let restore = ChangelogRestore(topic: configuration.kafka.batchesTopic, reader: reader, state: state,
                                       configuration: configuration.engine, logger: logger)
        return DurableState(store: store, reader: reader, state: state, restore: restore, logger: logger, metrics: metrics)
    }

    /// Partitions leave: their last snapshots are delivered first (unless they were lost, when another member may
    /// own them already), then their rows leave the store — except at shutdown, when a restart on the same staging
    /// directory will most likely own them again and read only the changelog's tail.
    func release(_ partitions: Set<Int32>, flushing: Bool, keepingRows: Bool) async {
        if flushing { await state.flush(partitions: partitions) }
        for partition in partitions {
            state.released(partition: partition)
            guard !keepingRows else { continue }
            do { try store.dropPartition(partition) } catch {
                metrics.storeFailed(.drop)
                logger.warn("could not drop a released partition's rows from the batch store", ["partition": String(partition), "error": "\(error)"])
            }
        }
    }

    /// What the store says of `batchId`'s multipart uploads, on the partitions owned: the ones its files will resume;
    /// `.unknown` when no owned partition holds it, or its snapshot cannot be read. Only partitions restored for
    /// this claim count: while a restore runs, the store holds what it read so far — maybe a snapshot older than the
    /// one that records the upload — or the rows of an earlier claim.
    func multipartKnowledge(of batchId: String, partitions: Set<Int32>) -> S3OrphanedUploads.BatchKnowledge {
        for partition in partitions where state.currentEpoch(partition: partition) != nil {
            guard let row = try? store.batch(partition: partition, batchId: batchId) else { continue }
            guard let batch = try? BatchSnapshot.decode(row.snapshot, configuration: restore.configuration).batch else {
                return .unknown
            }
            return .references(Set(batch.multipartUploads.map(\.uploadId)))
        }
        return .unknown
    }

    /// Tombstones stored batches idle for `ttl` that are not in memory (the registry expires those itself).
    func expire(idleFor ttl: Duration, partitions: Set<Int32>, held: (String) -> Bool) {
        let cutoff = Int64((Date().timeIntervalSince1970 - ttl.timeInterval) * 1000)
        for partition in partitions {
            guard let rows = try? store.idleBatches(partition: partition, updatedBefore: cutoff, limit: 1000) else { continue }
            for row in rows where !held(row.batchId) {
                state.forgetIdle(row)
            }
        }
    }
}

extension WorkerComponents {
    /// Lets staging read the inline bytes of restored files back from the jobs topic.
    mutating func readInlineBytes(from reader: KafkaPartitionReader, topic: String) {
        stager.recordedBytes = { origin in
            guard let record = try await reader.record(topic: topic, partition: origin.partition, offset: origin.offset),
                  let value = record.value else { return nil }
            return InlineSource.bytes(in: value, fileIndex: origin.index)
        }
    }
}
