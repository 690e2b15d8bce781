import BatchStore
import Foundation
import KafkaIO
import S3
import Testing
import UploadEngine
import TestSupport
@testable import Worker

/// What the durable state tells the storage sweep about a batch's multipart uploads (DESIGN §12 *No orphaned
/// parts*): only a partition restored for this claim answers from the store.
@Suite(.timeLimit(.minutes(1))) struct DurableStateTests {
    @Test func aPartitionStillBeingRestoredSaysNothingOfItsBatchesUploads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try BatchStateStore.open(path: directory.appendingPathComponent("state.db").path).0
        let state = ChangelogBatchState(topic: "attache.batches", store: store, producer: EventPublisherDeliveryTests.ScriptedProducer(),
                                        configuration: EngineConfiguration(), flushInterval: .zero, maxBytes: 1 << 20,
                                        eventsDelivered: { $0(.delivered) }, logger: .silent, onLoss: { _ in })
        // Never connects: the reader is not used here.
        let reader = try KafkaPartitionReader(configuration: KafkaConfiguration(bootstrapServers: "127.0.0.1:1"))
        let durable = DurableState(store: store, reader: reader, state: state,
                                   restore: ChangelogRestore(topic: "attache.batches", reader: reader, state: state,
                                                             configuration: EngineConfiguration(), logger: .silent),
                                   logger: .silent, metrics: WorkerMetrics())
        let batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        let snapshot = try #require(BatchSnapshot.encode(batch, writerGeneration: 1, maxBytes: 1 << 20))
        try store.apply([BatchChange(batchId: "trip", snapshot: snapshot, offset: 0, pending: false, updatedAt: 0)], partition: 2, checkpoint: 1)

        #expect(durable.multipartKnowledge(of: "trip", partitions: [2]) == .unknown, "its restore may not have read the newest snapshot yet")
        state.restored(partition: 2, through: 1, epoch: 7)
        #expect(durable.multipartKnowledge(of: "trip", partitions: [2]) == .references([]))
        state.released(partition: 2)
        #expect(durable.multipartKnowledge(of: "trip", partitions: [2]) == .unknown)
    }
}
