import BatchStore
import Foundation
import KafkaIO
import Synchronization
import Testing
import UploadEngine
import TestSupport
@testable import Worker

/// The changelog writer: coalesced snapshots to the batch's partition, "snapshot before offset", the local store
/// and its checkpoint kept with the worker's own writes, tombstones, and a lost snapshot being fatal.
@Suite(.timeLimit(.minutes(1))) struct ChangelogBatchStateTests {
    typealias Producer = EventPublisherDeliveryTests.ScriptedProducer

    private final class Fixture: Sendable {
        let producer = Producer()
        let directory: URL
        let store: BatchStateStore
        let state: ChangelogBatchState
        let losses = Locked<[String]>([])
        let events = EventBarriers()
        let metrics = WorkerMetrics()

        /// While set, the store refuses every write (as a full disk does).
        let refusing = Locked(false)

        init(cachedBatches: Int = 0, inProgressDelay: Duration = .zero) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("changelog-\(UUID().uuidString)")
            let store = try BatchStateStore.open(path: directory.appendingPathComponent("state.db").path).0
            self.store = store
            let losses = self.losses, events = self.events, metrics = self.metrics, refusing = self.refusing
            state = ChangelogBatchState(topic: "attache.batches", store: store, producer: producer, configuration: EngineConfiguration(),
                                        flushInterval: .zero, maxBytes: 900 * 1024, cachedBatches: cachedBatches,
                                        storeWrite: { changes, partition, checkpoint in
                                            if refusing.value { throw StoreRefusal() }
                                            try store.apply(changes, partition: partition, checkpoint: checkpoint)
                                        },
                                        inProgressDelay: inProgressDelay,
                                        eventsDelivered: { events.barrier($0) }, logger: .silent, metrics: metrics,
                                        onLoss: { reason in losses.update { $0.append(reason) } })
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func runner(_ batchId: String = "trip") -> BatchRunner {
            let batch = UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "u", type: .user)),
                                    configuration: EngineConfiguration(), options: MessageOptions(send: .none))
            return BatchRunner(batch: batch, presigner: ScriptedPresigner(), uploader: ScriptedUploader(), stager: ScriptedStager(),
                               clock: ManualClock())
        }

        /// The keys of the records handed to the producer, in order.
        var handedKeys: [String] {
            producer.state.withLock { $0.handed.map { String(decoding: $0.record.key ?? Data(), as: UTF8.self) } }
        }

        /// Waits until the flush task has handed `count` records to the producer.
        func handed(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
            await yieldUntil(sourceLocation: sourceLocation) { producer.handedCount >= count }
        }

        /// Delivers the `index`th record handed over and waits until its store write is done.
        func deliver(_ index: Int, partition: Int32 = 2, offset: Int64) async {
            producer.report(index, .success(KafkaDeliveryReport(topic: "attache.batches", partition: partition, offset: offset)))
            await state.storeWritesDone()
        }
    }

    @Test func recordedSnapshotsAreKeptEncodedAndALoadTakesThemBeforeTheStore() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let runner = fixture.runner()
        runner.upload([FileItem(fileId: "a", name: "a.png", mimeType: "image/png", source: .data(Data()))], requestId: "r", offset: 5)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(1)
        #expect(fixture.state.cachedCount == 0, "nothing is kept before it is recorded")
        await fixture.deliver(0, offset: 0)
        #expect(fixture.state.cachedCount == 1)
        // The store row goes: only the cache can answer now.
        try fixture.store.apply([.tombstone(batchId: "trip", offset: 1)], partition: 2, checkpoint: 2)
        #expect(fixture.state.load(batchId: "trip", partition: 3) == nil, "another partition's batch of the same id is not this one")
        let loaded = try #require(fixture.state.load(batchId: "trip", partition: 2))
        #expect(loaded.appliedThrough == 5 && loaded.state(of: "a") == .rejected)
        #expect(fixture.state.cachedCount == 0, "taken out: the batch is in memory again")
        #expect(fixture.state.load(batchId: "trip", partition: 2) == nil)
    }

    /// A batch a record settled as a value (no runner holds it) is what a load gives back until its snapshot is
    /// recorded; then the cache answers, and a partition that leaves takes the value with it.
    @Test func aBatchSettledAsAValueIsLoadedFromItUntilItsSnapshotIsRecorded() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        var batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        _ = batch.applyJob([FileItem(fileId: "a", name: "a.png", mimeType: "image/png", source: .data(Data()))], requestId: "r",
                           options: nil, concurrency: nil, offset: 5, now: Date())

        fixture.state.settled(batchId: "trip", partition: 2, batch: batch)

        #expect(fixture.state.load(batchId: "trip", partition: 2)?.appliedThrough == 5, "before its snapshot is taken")
        #expect(fixture.state.load(batchId: "trip", partition: 3) == nil, "another partition's batch of the same id is not this one")
        await fixture.handed(1)
        #expect(fixture.state.load(batchId: "trip", partition: 2)?.appliedThrough == 5, "while its snapshot is on its way")
        await fixture.deliver(0, offset: 0)
        #expect(fixture.state.pendingCount == 0 && fixture.state.cachedCount == 1)
        #expect(fixture.state.load(batchId: "trip", partition: 2)?.state(of: "a") == .rejected)
        #expect(fixture.state.cachedCount == 0, "taken from the cache: the value itself is no longer held")

        fixture.state.settled(batchId: "later", partition: 2, batch: batch)
        fixture.state.released(partition: 2)
        #expect(fixture.state.load(batchId: "later", partition: 2) == nil, "the partition's next owner may change it")
    }

    /// The store's sweep read batches as idle; one had a job applied at intake since (as a value: no session for
    /// the sweep to see), another a newer snapshot stored: both stay — the tombstone would have overwritten the job's
    /// snapshot. The one nobody touched goes.
    @Test func aStoredBatchFoundIdleStaysWhenItChangedSinceTheSweepReadIt() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        func row(_ batchId: String, offset: Int64) -> BatchChange {
            BatchChange(batchId: batchId, snapshot: Data("old \(batchId)".utf8), offset: offset, pending: false, updatedAt: 0)
        }
        try fixture.store.apply([row("idle", offset: 1), row("moved", offset: 2), row("gone", offset: 3)], partition: 2, checkpoint: 4)
        let read = try fixture.store.idleBatches(partition: 2, updatedBefore: 1, limit: 10)
        #expect(read.count == 3)

        var batch = UploadBatch(context: BatchContext(batchId: "idle", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        _ = batch.applyJob([FileItem(fileId: "a", name: "a.png", mimeType: "image/png", source: .data(Data()))], requestId: "r",
                           options: nil, concurrency: nil, offset: 5, now: Date())
        fixture.state.settled(batchId: "idle", partition: 2, batch: batch)
        try fixture.store.apply([row("moved", offset: 7)], partition: 2, checkpoint: 8)
        read.forEach(fixture.state.forgetIdle)

        let producer = fixture.producer
        func handed() -> [(key: String, value: Bool)] {
            producer.state.withLock { $0.handed.map { (String(decoding: $0.record.key ?? Data(), as: UTF8.self), $0.record.value != nil) } }
        }
        await yieldUntil { handed().contains { $0 == ("gone", false) } && handed().contains { $0 == ("idle", true) } }
        for _ in 0..<50 { await Task.yield() }
        #expect(handed().filter { !$0.value }.map(\.key) == ["gone"], "no tombstone but the untouched batch's")
        #expect(fixture.state.load(batchId: "idle", partition: 2)?.appliedThrough == 5)
    }

    /// A burst of batches owed at once grows the table of what is owed; once their snapshots are delivered the
    /// table gives that room back instead of keeping it for good.
    @Test func theOwedTableGivesBackTheRoomABurstTook() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let batch = UploadBatch(context: BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        let burst = 3000
        for index in 0..<burst { fixture.state.settled(batchId: "b\(index)", partition: 2, batch: batch) }
        await fixture.handed(burst)
        #expect(fixture.state.owedCapacity >= burst)

        for index in 0..<burst {
            fixture.producer.report(index, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 2, offset: Int64(index))))
        }
        await fixture.state.storeWritesDone()

        #expect(fixture.state.pendingCount == 0)
        #expect(fixture.state.owedCapacity <= 1024, "\(fixture.state.owedCapacity) entries of room kept")
    }

    @Test func forgettingABatchOrReleasingItsPartitionDropsItsCachedSnapshot() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        for (index, batchId) in ["x", "y"].enumerated() {
            fixture.state.changed(batchId: batchId, partition: 2, runner: fixture.runner(batchId))
            await fixture.handed(index + 1)
            await fixture.deliver(index, offset: Int64(index))
        }
        #expect(fixture.state.cachedCount == 2)
        fixture.state.forget(batchId: "x", partition: 2)
        #expect(fixture.state.cachedCount == 1)
        fixture.state.released(partition: 2)
        #expect(fixture.state.cachedCount == 0)
    }

    @Test func aSnapshotGoesToTheBatchsPartitionWithItsHeadersAndRecordsWaitForIt() async throws {
        let fixture = try Fixture()
        let runner = fixture.runner()
        fixture.state.restored(partition: 2, through: 40, epoch: 12)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        await fixture.handed(1)
        let record = try #require(fixture.producer.state.withLock { $0.handed.first?.record })
        #expect(record.partition == 2 && record.topic == "attache.batches")
        #expect(record.key == Data("trip".utf8))
        #expect(record.headers.first { $0.name == SnapshotRecord.generationHeader }?.stringValue == "12")
        #expect(!released.value, "not before the snapshot is delivered")
        await fixture.deliver(0, offset: 40)
        #expect(released.value)
        let row = try #require(try fixture.store.batch(partition: 2, batchId: "trip"))
        #expect(row.offset == 40)
        #expect(try BatchSnapshot.decode(row.snapshot, configuration: EngineConfiguration()).batch.batchId == "trip")
        #expect(try fixture.store.checkpoint(partition: 2) == 41, "the worker's own write moves the checkpoint on")
    }

    @Test func aBatchIsPendingUntilItsSnapshotIsDeliveredAndADeliveryIsCounted() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        fixture.state.changed(batchId: "trip", partition: 2, runner: fixture.runner())
        #expect(fixture.state.pendingCount == 1)
        await fixture.handed(1)
        #expect(fixture.state.pendingCount == 1, "produced, not yet delivered")
        await fixture.deliver(0, offset: 0)
        #expect(fixture.state.pendingCount == 0)
        #expect(fixture.metrics.registry.value(WorkerMetrics.snapshotsDelivered) == 1)
    }

    @Test func aStoreThatCannotRecordADeliveredSnapshotIsCountedAndTheRecordWaits() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let runner = fixture.runner()
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        await fixture.handed(1)
        fixture.store.close()
        await fixture.deliver(0, offset: 0)
        #expect(fixture.metrics.registry.value(WorkerMetrics.storeErrors, labels: ["operation": "write"]) >= 1)
        #expect(!released.value, "a batch let go now would come back from a store that does not have it: started afresh")
        #expect(fixture.state.isBlocked)
        #expect(fixture.losses.value.isEmpty, "not fatal: the worker waits for the store")
        await fixture.state.flush(partitions: [2])  // the partition leaves: the retries end
        #expect(released.value && !fixture.state.isBlocked)
    }

    @Test func changesWithinAFlushGoOutAsOneSnapshot() async throws {
        let fixture = try Fixture()
        let runner = fixture.runner()
        for _ in 0..<5 { fixture.state.changed(batchId: "trip", partition: 2, runner: runner) }
        fixture.state.changed(batchId: "other", partition: 2, runner: fixture.runner("other"))
        await fixture.handed(2)
        for _ in 0..<20 { await Task.yield() }
        #expect(fixture.producer.handedCount == 2, "one record per batch")
    }

    @Test func aChangeAfterTheSnapshotWasTakenIsWaitedForByLaterRecords() async throws {
        let fixture = try Fixture()
        let runner = fixture.runner()
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(1)
        runner.setConcurrency(3)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        await fixture.deliver(0, offset: 0)
        #expect(!released.value, "the first snapshot predates the change")
        await fixture.handed(2)
        await fixture.deliver(1, offset: 1)
        #expect(released.value)
    }

    @Test func aTombstoneDeletesTheStoredRow() async throws {
        let fixture = try Fixture()
        fixture.state.changed(batchId: "trip", partition: 2, runner: fixture.runner())
        await fixture.handed(1)
        await fixture.deliver(0, offset: 0)
        fixture.state.forget(batchId: "trip", partition: 2)
        await fixture.handed(2)
        #expect(fixture.producer.state.withLock { $0.handed[1].record.value } == nil)
        await fixture.deliver(1, offset: 1)
        #expect(try fixture.store.batch(partition: 2, batchId: "trip") == nil)
    }

    @Test func aSnapshotThatCannotBeDeliveredIsFatalAndReleasesNothing() async throws {
        let fixture = try Fixture()
        let runner = fixture.runner()
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        await fixture.handed(1)
        fixture.producer.report(0, .failure(KafkaError(.timedOut, "message timed out")))
        #expect(fixture.losses.value.count == 1)
        #expect(!released.value)
    }

    @Test func aRevokeFlushWaitsForThePartitionsSnapshots() async throws {
        let fixture = try Fixture()
        fixture.state.changed(batchId: "trip", partition: 2, runner: fixture.runner())
        let flushed = Locked(false)
        let flush = Task {
            await fixture.state.flush(partitions: [2])
            flushed.update { $0 = true }
        }
        await fixture.handed(1)
        #expect(!flushed.value)
        await fixture.deliver(0, offset: 0)
        await waitFor("the flush to end") { await flush.value }
        #expect(flushed.value)
        await fixture.state.flush(partitions: [5])  // nothing owed there: returns at once
    }

    @Test func aFlushUnderWayEndsWhenASnapshotIsLostAndLaterOnesReturnAtOnce() async throws {
        let fixture = try Fixture()
        fixture.state.changed(batchId: "a", partition: 2, runner: fixture.runner("a"))
        fixture.state.changed(batchId: "b", partition: 2, runner: fixture.runner("b"))
        let flush = Task { await fixture.state.flush(partitions: [2]) }
        await fixture.handed(2)
        // One is lost; the other will never be delivered either (the worker stops): the flush must not wait for it.
        fixture.producer.report(0, .failure(KafkaError(.timedOut, "message timed out")))
        await waitFor("the flush to end") { await flush.value }
        #expect(fixture.losses.value.count == 1)
        fixture.state.changed(batchId: "c", partition: 2, runner: fixture.runner("c"))
        await fixture.state.flush(partitions: [2])
    }

    @Test func aSnapshotIsProducedOnlyOnceTheEventsPublishedBeforeItWereDelivered() async throws {
        let fixture = try Fixture()
        fixture.events.hold()
        fixture.state.changed(batchId: "trip", partition: 2, runner: fixture.runner())
        await yieldUntil { fixture.events.waitingCount == 1 }
        for _ in 0..<20 { await Task.yield() }
        #expect(fixture.producer.handedCount == 0, "the next owner would take the snapshot as told, events or not")
        fixture.events.fire(0)
        await fixture.handed(1)
    }

    /// Events lost before a flush's snapshot: the snapshot never goes out (the next owner would take it as told and
    /// never publish the lost events), the loss is fatal, and a flush waiting for the snapshot ends instead of
    /// holding the worker's shutdown for good.
    @Test func eventsLostBeforeASnapshotEndTheFlushWaitingForItWithoutProducingIt() async throws {
        let fixture = try Fixture()
        fixture.events.hold()
        fixture.state.changed(batchId: "trip", partition: 2, runner: fixture.runner())
        await yieldUntil { fixture.events.waitingCount == 1 }
        let flush = Task { await fixture.state.flush(partitions: [2]) }
        fixture.events.fire(0, .lost)
        await waitFor("the flush to end after the loss") { await flush.value }
        #expect(fixture.losses.value.count == 1, "fatal, once")
        #expect(fixture.producer.handedCount == 0, "no snapshot ahead of its lost events")
        await fixture.state.flush(partitions: [2])  // and any later flush returns at once
    }

    /// The version of the snapshot handed over `index`th.
    private func handedVersion(_ fixture: Fixture, _ index: Int) throws -> Int {
        let bytes = try #require(fixture.producer.state.withLock { $0.handed[index].record.value })
        return try BatchSnapshot.decode(bytes, configuration: EngineConfiguration()).batch.stateVersion
    }

    /// Batch "trip" on a restored partition 2, with one file rejected and that snapshot handed to the producer.
    private func tripHandedOnce() async throws -> (Fixture, BatchRunner) {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let runner = fixture.runner()
        rejectOne(runner, "a", offset: 1)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(1)
        return (fixture, runner)
    }

    /// The first record handed over comes back without a place from inside the producer's call that takes the
    /// `index`th: a delivery report landing while the writer's outbox pass is handing a record over.
    private func unplaceFirst(whileHanding index: Int, _ fixture: Fixture) {
        let producer = fixture.producer
        producer.state.withLock { state in
            state.onProduce = { handed in
                guard handed == index else { return }
                producer.report(0, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 2, offset: -1)))
            }
        }
    }

    private func rejectOne(_ runner: BatchRunner, _ fileId: String, offset: Int64) {
        runner.upload([FileItem(fileId: fileId, name: "\(fileId).bin", source: .data(Data()))], requestId: "r-\(fileId)", offset: offset)
    }

    @Test func aSnapshotRefusedForAFullQueueKeepsItsPlaceBeforeItsBatchsNewerOne() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let runner = fixture.runner()
        fixture.producer.state.withLock { $0.refuseForRoom = true }
        rejectOne(runner, "a", offset: 1)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await yieldUntil { fixture.producer.hasSpaceWaiter }
        // A newer state of the same batch is taken while the older one waits for room.
        rejectOne(runner, "b", offset: 2)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await yieldUntil { fixture.producer.state.withLock { $0.refusals } >= 1 }
        for _ in 0..<50 { await Task.yield() }
        fixture.producer.freeRoom()
        await fixture.handed(2)
        #expect(try handedVersion(fixture, 0) < handedVersion(fixture, 1), "the changelog must get the batch's versions in order")
    }

    @Test func aSnapshotAcknowledgedWithoutAPlaceIsNotProducedAgainBehindANewerOne() async throws {
        let (fixture, runner) = try await tripHandedOnce()
        rejectOne(runner, "b", offset: 2)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(2)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        // The older one comes back without an offset after the newer one went out: producing it again would put it
        // behind the newer one, and compaction would keep it.
        fixture.producer.report(0, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 2, offset: -1)))
        for _ in 0..<50 { await Task.yield() }
        #expect(fixture.producer.handedCount == 2)
        #expect(!released.value)
        await fixture.deliver(1, offset: 7)
        #expect(released.value)
        #expect(try BatchSnapshot.decode(try #require(try fixture.store.batch(partition: 2, batchId: "trip")).snapshot,
                                         configuration: EngineConfiguration()).batch.count == 2)
    }

    /// The producer's delivery thread puts a snapshot to go again in front of the outbox while a pass is handing
    /// another batch's snapshot over: the pass takes out the record it handed, not the one put in front, which must
    /// still go out (else the record waiting for it would wait for ever) and go out once.
    @Test func aSnapshotPutBackWhileAnotherIsBeingHandedOverStillGoesOutOnce() async throws {
        let (fixture, trip) = try await tripHandedOnce()
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: trip.stateVersion) { released.update { $0 = true } }
        unplaceFirst(whileHanding: 1, fixture)
        let other = fixture.runner("other")
        rejectOne(other, "b", offset: 2)
        fixture.state.changed(batchId: "other", partition: 2, runner: other)
        await fixture.handed(3)
        for _ in 0..<50 { await Task.yield() }
        let keys = fixture.producer.state.withLock { $0.handed.map { String(decoding: $0.record.key ?? Data(), as: UTF8.self) } }
        #expect(keys == ["trip", "other", "trip"], "each snapshot handed over once, trip's again after its unplaced ack")
        #expect(!released.value)
        await fixture.deliver(2, offset: 5)
        #expect(released.value)
    }

    /// The same, when the one being handed over is a newer snapshot of the same batch: the older one is put back
    /// before the newer one counts as handed, so only the pass can tell that the newer one now stands for it.
    @Test func aSnapshotPutBackWhileANewerOneIsBeingHandedOverIsNotProducedBehindIt() async throws {
        let (fixture, runner) = try await tripHandedOnce()
        unplaceFirst(whileHanding: 1, fixture)
        rejectOne(runner, "b", offset: 2)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(2)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        for _ in 0..<50 { await Task.yield() }
        #expect(fixture.producer.handedCount == 2, "the older snapshot must not follow the newer one into the changelog")
        await fixture.deliver(1, offset: 7)
        #expect(released.value)
        #expect(try handedVersion(fixture, 0) < handedVersion(fixture, 1))
    }

    @Test func aDeliveredTombstoneDoesNotLetGoARecordWaitingForANewerSnapshot() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        fixture.state.forget(batchId: "trip", partition: 2)  // expiry
        await fixture.handed(1)
        // A job makes the batch again before the tombstone is delivered: its versions start afresh.
        let runner = fixture.runner()
        rejectOne(runner, "a", offset: 9)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(2)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        await fixture.deliver(0, offset: 3)
        #expect(!released.value, "the record's snapshot is still on its way")
        await fixture.deliver(1, offset: 4)
        #expect(released.value)
    }

    /// A snapshot of the batch's life before its expiry, delivered after a new life's value settled, is not taken
    /// for the new one's (both count versions from 1): the new value is answered until its own snapshot is stored.
    @Test func aSnapshotOfAnExpiredLifeDoesNotStandForTheBatchMadeAgain() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let old = Self.settledBatch(files: ["a", "b", "c"])
        fixture.state.settled(batchId: "trip", partition: 2, batch: old)
        await fixture.handed(1)
        fixture.state.forget(batchId: "trip", partition: 2)
        await fixture.handed(2)
        let new = Self.settledBatch(files: ["z"])
        #expect(new.stateVersion < old.stateVersion)
        fixture.state.settled(batchId: "trip", partition: 2, batch: new)
        await fixture.handed(3)

        await fixture.deliver(0, offset: 0)
        #expect(fixture.state.load(batchId: "trip", partition: 2)?.count == 1,
                "not the expired life's snapshot of three files, which was stored and cached")
        await fixture.deliver(1, offset: 1)
        await fixture.deliver(2, offset: 2)
        #expect(fixture.state.load(batchId: "trip", partition: 2)?.count == 1)
    }

    /// Snapshots produced before the partition left, delivered after this worker claimed it again, stay out of the
    /// store and hold its checkpoint back: the restore of the new claim did not read them, and the next restore fences
    /// them by their epoch.
    @Test func aSnapshotOfAnEarlierClaimDeliveredAfterANewOneIsNotStored() async throws {
        let fixture = try Fixture(cachedBatches: 10)
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        fixture.state.settled(batchId: "trip", partition: 2, batch: Self.settledBatch(files: ["a"]))
        await fixture.handed(1)
        fixture.state.released(partition: 2)  // lost, without a flush
        fixture.state.restored(partition: 2, through: 0, epoch: 20)
        await fixture.deliver(0, offset: 0)
        #expect(fixture.state.load(batchId: "trip", partition: 2) == nil, "what the new claim's restore read: nothing")
        #expect(try fixture.store.batch(partition: 2, batchId: "trip") == nil)
        #expect(try fixture.store.checkpoint(partition: 2) ?? 0 == 0, "the next restore reads the record and decides")
    }

    private static func settledBatch(files: [String]) -> UploadBatch {
        var batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        for (index, file) in files.enumerated() {
            _ = batch.applyJob([FileItem(fileId: file, name: "\(file).png", mimeType: "image/png", source: .data(Data()))],
                               requestId: "r\(index)", options: nil, concurrency: nil, offset: Int64(index), now: Date())
        }
        return batch
    }

    /// A batch still at work, with nothing of it settled and no record waiting, is not written at every change: the
    /// record it took stays uncommitted until it settles anyway. It is written when a record waits for it, when its
    /// partition is written out, or once it settles — one snapshot for a job that finishes within the delay.
    @Test func aBatchStillAtWorkIsWrittenWhenItSettlesOrSomeoneWaitsNotAtEveryChange() async throws {
        let fixture = try Fixture(inProgressDelay: .seconds(60))
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let uploads = Gate()
        let runner = BatchRunner(batch: UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                                    configuration: EngineConfiguration(), options: MessageOptions(send: .none)),
                                 presigner: ScriptedPresigner(),
                                 uploader: ScriptedUploader { transfer, progress in
                                     await uploads.wait()
                                     progress(transfer.staged.size, transfer.staged.size)
                                 },
                                 stager: ScriptedStager(), clock: ManualClock())
        let state = fixture.state
        runner.setChangeObserver { [weak runner] in
            if let runner { state.changed(batchId: "trip", partition: 2, runner: runner) }
        }
        runner.upload([FileItem(fileId: "a", name: "a.bin", source: .data(Data([1, 2, 3])))], requestId: "r", offset: 1)
        await yieldUntil { fixture.state.putOffCount == 1 }
        #expect(fixture.producer.handedCount == 0, "nothing settled and nobody waits: the intake's change is put off")

        uploads.open()
        await yieldUntil { runner.isSettled }
        await fixture.handed(1)
        await yieldUntil { fixture.state.isIdle(queueFull: false, storeRefuses: false) }
        #expect(fixture.producer.handedCount == 1, "one snapshot for the job, taken once it settled")
        let written = try BatchSnapshot.decode(#require(fixture.producer.state.withLock { $0.handed[0].record.value }),
                                               configuration: EngineConfiguration()).batch
        #expect(written.state(of: "a") == .uploaded && written.appliedThrough == 1)
    }

    @Test func aBatchStillAtWorkIsWrittenAtOnceWhenARecordWaitsOrItsPartitionIsWrittenOut() async throws {
        let fixture = try Fixture(inProgressDelay: .seconds(60))
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        fixture.state.restored(partition: 3, through: 0, epoch: 13)
        let uploads = Gate()
        defer { uploads.open() }
        func heldRunner(_ batchId: String) -> BatchRunner {
            BatchRunner(batch: UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "u", type: .user)),
                                           configuration: EngineConfiguration(), options: MessageOptions(send: .none)),
                        presigner: ScriptedPresigner(),
                        uploader: ScriptedUploader { _, _ in await uploads.wait() }, stager: ScriptedStager(), clock: ManualClock())
        }
        let waited = heldRunner("waited"), handedOver = heldRunner("handed-over")
        for runner in [waited, handedOver] {
            runner.upload([FileItem(fileId: "a", name: "a.bin", source: .data(Data([1])))], requestId: "r", offset: 1)
            fixture.state.changed(batchId: runner.batchId, partition: runner === waited ? 2 : 3, runner: runner)
        }
        await yieldUntil { fixture.state.putOffCount == 2 }
        #expect(fixture.producer.handedCount == 0)

        fixture.state.whenRecorded(batchId: "waited", version: waited.stateVersion) {}
        await fixture.handed(1)
        #expect(fixture.handedKeys == ["waited"], "a record waits: taken at once")

        let flushed = Task { await fixture.state.flush(partitions: [3]) }
        await fixture.handed(2)
        #expect(fixture.handedKeys == ["waited", "handed-over"], "a revoke writes its partition out")
        fixture.producer.report(1, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 3, offset: 0)))
        await flushed.value
    }

    /// Makes the store refuse writes, then has a snapshot of batch "trip" delivered; says when its record is let go.
    private func deliverToARefusingStore(_ fixture: Fixture) async -> Locked<Bool> {
        fixture.refusing.update { $0 = true }
        let runner = fixture.runner()
        rejectOne(runner, "a", offset: 1)
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        await fixture.handed(1)
        let released = Locked(false)
        fixture.state.whenRecorded(batchId: "trip", version: runner.stateVersion) { released.update { $0 = true } }
        fixture.producer.report(0, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 2, offset: 0)))
        return released
    }

    @Test func aStoreThatRefusesWritesHoldsTheRecordsAndBlocksIntakeUntilItTakesThem() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let blocked = Locked<[Bool]>([])
        fixture.state.onStoreBlocked { value in blocked.update { $0.append(value) } }
        let released = await deliverToARefusingStore(fixture)

        #expect(await eventually(within: .seconds(20)) { blocked.value == [true] })
        #expect(fixture.state.isBlocked)
        #expect(!released.value, "the record waits: the store could not give its batch back")
        #expect(fixture.metrics.registry.value(WorkerMetrics.storeErrors, labels: ["operation": "write"]) >= 1)

        #expect(try fixture.store.batch(partition: 2, batchId: "trip") == nil)
        fixture.refusing.update { $0 = false }
        #expect(await eventually(within: .seconds(30)) { released.value })
        #expect(blocked.value == [true, false])
        #expect(!fixture.state.isBlocked)
        #expect(try fixture.store.batch(partition: 2, batchId: "trip") != nil, "written once the store took it")
    }

    @Test func aLeavingPartitionsRefusedSnapshotsAreLetGoWithoutTheirRows() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        _ = await deliverToARefusingStore(fixture)
        #expect(await eventually(within: .seconds(20)) { fixture.state.isBlocked })
        // The handover does not wait for the store: the changelog has the snapshot, the next owner reads it there.
        await fixture.state.flush(partitions: [2])
        #expect(!fixture.state.isBlocked)
        #expect(try fixture.store.checkpoint(partition: 2) ?? 0 == 0, "the store's checkpoint stays before what it does not have")
    }

    /// The snapshots the leaving flush itself writes reach a store that refuses too: they are let go as well, or
    /// the handover waits for the store after all.
    @Test func aLeavingPartitionsLastSnapshotsDoNotWaitForARefusingStore() async throws {
        let fixture = try Fixture()
        fixture.state.restored(partition: 2, through: 0, epoch: 12)
        let blocked = Locked<[Bool]>([])
        fixture.state.onStoreBlocked { value in blocked.update { $0.append(value) } }
        _ = await deliverToARefusingStore(fixture)
        #expect(await eventually(within: .seconds(20)) { fixture.state.isBlocked })
        let runner = fixture.runner("later")
        rejectOne(runner, "b", offset: 2)
        fixture.state.changed(batchId: "later", partition: 2, runner: runner)
        await fixture.handed(2)
        let flushed = Locked(false)
        Task {
            await fixture.state.flush(partitions: [2])
            flushed.update { $0 = true }
        }
        // Delivered while the flush waits for it, the store still refusing.
        await yieldUntil { fixture.state.pendingCount == 1 && !fixture.state.isBlocked }
        await fixture.deliver(1, offset: 1)
        #expect(await eventually(within: .seconds(20)) { flushed.value }, "the handover waited for the store")
        #expect(blocked.value.last == false, "the last word the observer had: the store blocks nothing now")
        #expect(try fixture.store.checkpoint(partition: 2) ?? 0 == 0, "the store's checkpoint stays before what it does not have")
    }

    @Test func flushesGoOutInTheirOrderWhateverOrderTheirEventsAreDeliveredIn() async throws {
        let fixture = try Fixture()
        fixture.events.hold()
        fixture.state.changed(batchId: "x", partition: 2, runner: fixture.runner("x"))
        await yieldUntil { fixture.events.waitingCount == 1 }
        fixture.state.changed(batchId: "y", partition: 2, runner: fixture.runner("y"))
        await yieldUntil { fixture.events.waitingCount == 2 }
        fixture.events.fire(1)
        for _ in 0..<20 { await Task.yield() }
        #expect(fixture.producer.handedCount == 0, "the later flush waits for the earlier one")
        fixture.events.fire(0)
        await fixture.handed(2)
        #expect(fixture.handedKeys == ["x", "y"])
    }

    /// A change during a flush schedules the next flush, and a revoke flushes beside the timer's: passes overlap. A
    /// pass that took a batch first must still hand its snapshot over first. Timing-dependent by nature, so many
    /// changes, each racing the flush before it (without the flushes' lock, two runs in three caught one out of
    /// order).
    @Test func overlappingFlushesHandABatchsSnapshotsOverInVersionOrder() async throws {
        let fixture = try Fixture()
        let producer = fixture.producer
        producer.state.withLock { state in
            state.onProduce = { index in
                producer.report(index, .success(KafkaDeliveryReport(topic: "attache.batches", partition: 2, offset: Int64(index))))
            }
        }
        fixture.state.restored(partition: 2, through: 0, epoch: 3)
        let runner = fixture.runner()
        let changes = 30_000
        let done = Gate()
        // From a thread of its own, as a runner changes its batch.
        Thread {
            for step in 0..<changes {
                runner.setConcurrency(step % 4 + 1)
                fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
            }
            done.open()
        }.start()
        let finished = Locked(false)
        Task {
            await done.wait()
            finished.update { $0 = true }
        }
        while !finished.value { await fixture.state.flush(partitions: [2]) }
        await fixture.state.flush(partitions: [2])
        let versions = try (0..<producer.handedCount).map { try handedVersion(fixture, $0) }
        #expect(versions.last == runner.stateVersion)
        let backwards = zip(versions, versions.dropFirst()).filter { $0.0 > $0.1 }
        #expect(backwards.isEmpty, "handed \(versions.count) snapshots; out of order: \(backwards.prefix(5))")
    }

    @Test func aBatchWhoseEventsAreStillOnTheirWayToThePublisherIsTakenAtALaterFlush() async throws {
        let fixture = try Fixture()
        let runner = fixture.runner()
        let delivering = Gate()
        let proceed = DispatchSemaphore(value: 0)
        let first = Locked(true)
        runner.setGlobalObserver { _ in
            guard first.update({ was in defer { was = false }; return was }) else { return }
            delivering.open()
            proceed.wait()  // on the thread below: the event is not handed on yet
        }
        Thread {
            runner.upload([FileItem(fileId: "a", name: "a.bin", source: .data(Data()))], requestId: "r", offset: 3)
        }.start()
        await waitFor("the delivery to begin") { await delivering.wait() }
        fixture.state.changed(batchId: "trip", partition: 2, runner: runner)
        for _ in 0..<50 { await Task.yield() }
        #expect(fixture.producer.handedCount == 0, "a snapshot saying 'a' was rejected before its event went out")
        proceed.signal()
        await fixture.handed(1)
        let bytes = try #require(fixture.producer.state.withLock { $0.handed[0].record.value })
        #expect(try BatchSnapshot.decode(bytes, configuration: EngineConfiguration()).batch.count == 1, "taken after the event")
    }
}
