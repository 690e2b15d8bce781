import BatchStore
import Foundation
import KafkaIO
import Testing
import UploadEngine
import TestSupport
@testable import Worker

/// A restore against a real (mock) changelog: the store is brought to the end of the partition, a zombie's older
/// generation cannot roll a batch back, tombstones delete, pending batches come back to resume, and a second
/// restore reads only the tail.
@Suite(.timeLimit(.minutes(1))) struct ChangelogRestoreTests {
    static let cluster = Task { try await MockKafkaCluster.start(brokers: 1) }

    private static func batch(_ batchId: String, files: [String], pending: Bool = false) -> UploadBatch {
        var batch = UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        let items = files.map { FileItem(fileId: $0, name: "\($0).png", mimeType: "image/png", source: .url("https://x.test/\($0)")) }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var effects = batch.add(items, requestId: "r", now: now)
        // Settle every file unless the batch is meant to be left pending.
        while !pending, let action = effects.actions.first {
            effects.actions.removeFirst()
            switch action {
            case .stage(let token, let item, _, _):
                effects.actions += batch.staged(token, .success(StagedFile(path: "/s/\(item.fileId)", size: 4, sha256: "h")), now: now).actions
            case .presign(let calls):
                let answer = Dictionary(uniqueKeysWithValues: calls.map {
                    ($0.file.fileId, PresignOutcome.target(UploadTarget(uploadURL: "https://s.test/\($0.file.fileId)",
                                                                         fileURL: "https://cdn.test/\($0.file.fileId)")))
                })
                effects.actions += batch.presigned(calls, .success(answer), now: now).actions
            case .upload(let token, _):
                effects.actions += batch.uploaded(token, .success(()), now: now).actions
            default:
                break
            }
        }
        return batch
    }

    private static func record(_ topic: String, _ batch: UploadBatch, generation: Int64) -> KafkaProducerRecord {
        SnapshotRecord.snapshot(topic: topic, batchId: batch.batchId, partition: 0,
                                bytes: Data(BatchSnapshot.encode(batch, writerGeneration: generation, maxBytes: 1 << 20)!),
                                generation: generation, pending: batch.hasWorkToResume, updatedAt: 1)
    }

    @Test func aRestoreFencesZombiesAppliesTombstonesResumesPendingAndThenReadsOnlyTheTail() async throws {
        let cluster = try await Self.cluster.value
        let topic = "restore-\(UUID().uuidString.prefix(8))"
        _ = try await cluster.createTopic(topic, partitions: 1)
        let kafka = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers)
        let producer = try KafkaProducer(configuration: kafka)
        let current = Self.batch("kept", files: ["a", "b"])
        _ = try await producer.send(Self.record(topic, current, generation: 5))
        // A member that lost the partition without knowing writes the batch as it saw it, under an older generation.
        _ = try await producer.send(Self.record(topic, Self.batch("kept", files: ["a"]), generation: 3))
        _ = try await producer.send(Self.record(topic, Self.batch("gone", files: ["x"]), generation: 5))
        _ = try await producer.send(SnapshotRecord.tombstone(topic: topic, batchId: "gone", partition: 0, generation: 5))
        // The zombie again, late: its snapshot of the expired batch and its own expiry of the kept one are fenced.
        _ = try await producer.send(Self.record(topic, Self.batch("gone", files: ["x"]), generation: 3))
        _ = try await producer.send(SnapshotRecord.tombstone(topic: topic, batchId: "kept", partition: 0, generation: 3))
        _ = try await producer.send(Self.record(topic, Self.batch("pending", files: ["p"], pending: true), generation: 5))

        let restorer = try Restorer(topic: topic, kafka: kafka, producer: producer)
        defer { try? FileManager.default.removeItem(at: restorer.directory) }
        let (state, restore, store) = (restorer.state, restorer.restore, restorer.state.store)
        let first = try await restore.restore(partition: 0)
        #expect(first.recordsRead == 7 && first.fenced == 3 && first.rebuilt)
        #expect(state.load(batchId: "kept", partition: 0)?.attachments.map(\.fileId) == ["a", "b"],
                "the zombie's older snapshot and tombstone did not roll the batch back or delete it")
        #expect(state.load(batchId: "gone", partition: 0) == nil, "the zombie's snapshot did not bring the expired batch back")
        #expect(first.pending.map(\.batchId) == ["pending"])
        #expect(try store.checkpoint(partition: 0) == 8, "past the fence record the restore wrote at the end (offset 7)")

        _ = try await producer.send(Self.record(topic, Self.batch("later", files: ["l"]), generation: 6))
        let second = try await restore.restore(partition: 0)
        #expect(second.recordsRead == 1 && !second.rebuilt, "only the tail past the checkpoint")
        #expect(state.load(batchId: "later", partition: 0) != nil)
        try await producer.close()
    }

    /// A restore of the partition by a worker with a store of its own.
    private struct Restorer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restore-\(UUID().uuidString)")
        let state: ChangelogBatchState
        let restore: ChangelogRestore

        init(topic: String, kafka: KafkaConfiguration, producer: KafkaProducer) throws {
            let store = try BatchStateStore.open(path: directory.appendingPathComponent("state.db").path).0
            state = ChangelogBatchState(topic: topic, store: store, producer: producer, configuration: EngineConfiguration(),
                                        flushInterval: .zero, maxBytes: 1 << 20, eventsDelivered: { $0(.delivered) }, logger: .silent,
                                        onLoss: { _ in })
            restore = ChangelogRestore(topic: topic, reader: try KafkaPartitionReader(configuration: kafka), state: state,
                                       configuration: EngineConfiguration(), logger: .silent)
        }
    }

    @Test func aZombieIsFencedAcrossANewGroupWhateverItsGroupGeneration() async throws {
        let cluster = try await Self.cluster.value
        let topic = "fence-\(UUID().uuidString.prefix(8))"
        _ = try await cluster.createTopic(topic, partitions: 1)
        let kafka = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers)
        let producer = try KafkaProducer(configuration: kafka)
        // The old owner, in a group whose generation reached 9, wrote the batch under that generation.
        _ = try await producer.send(Self.record(topic, Self.batch("kept", files: ["a"]), generation: 9))
        let zombie = try Restorer(topic: topic, kafka: kafka, producer: producer)
        defer { try? FileManager.default.removeItem(at: zombie.directory) }
        _ = try await zombie.restore.restore(partition: 0)
        let zombieEpoch = try #require(zombie.state.currentEpoch(partition: 0))
        // The group expired (or kafka.groupId changed): the new owner's group generation starts again at 1, and it
        // restores the partition while the old owner still believes it owns it.
        let owner = try Restorer(topic: topic, kafka: kafka, producer: producer)
        defer { try? FileManager.default.removeItem(at: owner.directory) }
        _ = try await owner.restore.restore(partition: 0)
        let ownerEpoch = try #require(owner.state.currentEpoch(partition: 0))
        #expect(ownerEpoch > zombieEpoch && zombieEpoch > 9)
        _ = try await producer.send(Self.record(topic, Self.batch("kept", files: ["a", "b"]), generation: ownerEpoch))
        // The zombie's late write of the batch as it saw it, and a writer from before epochs existed.
        _ = try await producer.send(Self.record(topic, Self.batch("kept", files: ["a"]), generation: zombieEpoch))
        _ = try await producer.send(Self.record(topic, Self.batch("kept", files: ["a"]), generation: 12))

        let next = try Restorer(topic: topic, kafka: kafka, producer: producer)
        defer { try? FileManager.default.removeItem(at: next.directory) }
        let outcome = try await next.restore.restore(partition: 0)
        #expect(outcome.fenced == 2)
        #expect(next.state.load(batchId: "kept", partition: 0)?.attachments.map(\.fileId) == ["a", "b"],
                "neither the zombie nor an older writer rolled the batch back")
        #expect(next.state.load(batchId: SnapshotRecord.fenceKey, partition: 0) == nil, "a fence record is no batch")
        try await producer.close()
    }
}
