import Foundation
@testable import Records
import TestSupport
import Testing
import UploadEngine
@testable import Worker

/// The registry over durable state: records wait for their snapshot, replays are not applied twice, batches not
/// in memory come back from the store, and idle ones leave memory beyond the cache.
@Suite(.timeLimit(.minutes(1))) struct DurableRegistryTests {
    private struct Fixture {
        let publisher = RecordingPublisher()
        let sender = RecordingSender()
        let durability = MemoryDurability()
        let clock = ManualClock()
        let registry: BatchRegistry

        init(fileCountMax: Int = 10, uploader: ScriptedUploader = ScriptedUploader()) {
            var configuration = EngineConfiguration()
            configuration.concurrency = 4
            configuration.limits.fileCountMax = fileCountMax
            configuration.retry.maxAttempts = 1
            let clock = self.clock
            var dependencies = BatchRegistry.Dependencies(
                makeRunner: { BatchRunner(batch: $0, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(),
                                          poster: $1, clock: clock) },
                publisher: publisher, sender: sender, clock: clock)
            dependencies.durability = durability
            registry = BatchRegistry(configuration: configuration, dependencies: dependencies)
        }

        var configuration: EngineConfiguration { registry.configuration }
    }

    private static func job(_ batchId: String = "trip", files: [String], send: MessageOptions.SendMode = .none) -> JobCommand {
        .upload(UploadJob(requestId: "req-\(files.joined())", batchId: batchId, receiver: Receiver(id: "u", type: .user), sender: "s",
                          parentMessageId: nil, concurrency: nil,
                          files: files.map { FileItem(fileId: $0, name: "\($0).png", mimeType: "image/png", source: .data(Data(count: 16))) },
                          message: MessageOptions(send: send)))
    }

    @Test func aRecordIsLetGoOnlyOnceTheSnapshotReflectingItIsRecorded() async {
        let fixture = Fixture()
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 1, offset: 7, done: record.done)
        await fixture.publisher.wait(forType: "attache.batch.completed")
        #expect(record.calls == 0, "settled, but its snapshot is still owed")
        fixture.durability.flush()
        await record.wait()
        #expect(fixture.durability.stored["trip"]?.appliedThrough == 7)
        #expect(fixture.durability.stored["trip"]?.state(of: "a") == .uploaded)
    }

    @Test func aReplayedRecordIsNotAppliedAgainAndIsLetGoOnceTheBatchIsIdle() async {
        let fixture = Fixture()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 1, offset: 7, done: {})
        await fixture.publisher.wait(forType: "attache.batch.completed")
        fixture.durability.flush()
        let before = fixture.publisher.events.count
        let replay = RecordCompletion()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 1, offset: 7, done: replay.done)
        await replay.wait()
        #expect(fixture.publisher.events.count == before, "no second intake and no live-id rejection of its own file")
        #expect(fixture.durability.stored["trip"]?.count == 1)
    }

    @Test func aBatchHeldNowhereInMemoryComesBackFromTheStoreWithItsRules() async throws {
        let fixture = Fixture(fileCountMax: 2)
        // The batch as its previous owner left it: one file uploaded, nothing sent, manual mode.
        var batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: fixture.configuration, options: MessageOptions(send: .manual))
        var harness = BatchHarnessLite(batch: batch)
        harness.upload("a")
        batch = harness.batch
        batch.appliedThrough = 3
        fixture.durability.store(batch)

        let send = RecordCompletion()
        fixture.registry.handle(.send(batchId: "trip"), partition: 1, offset: 4, done: send.done)
        #expect(fixture.sender.messages.isEmpty, "a send's plan is recorded before its first post (§4.1 Sends)")
        fixture.durability.flush()
        await fixture.publisher.wait(forType: "attache.message.sent")
        fixture.durability.flush()
        await send.wait()
        #expect(fixture.sender.messages.map { $0.attachments.map(\.fileId) } == [["a"]], "the send control finds the batch")

        let join = RecordCompletion()
        fixture.registry.handle(.upload(UploadJob(requestId: "r2", batchId: "trip", receiver: Receiver(id: "u", type: .user), sender: nil,
                                                  parentMessageId: nil, concurrency: nil,
                                                  files: ["a", "b", "c"].map { FileItem(fileId: $0, name: "\($0).png", mimeType: "image/png",
                                                                                         source: .data(Data(count: 16))) },
                                                  message: MessageOptions(send: .manual))),
                                partition: 1, offset: 5, done: join.done)
        await fixture.publisher.wait(forType: "attache.batch.completed")
        fixture.durability.flush()
        await join.wait()
        let rejected = fixture.publisher.events.compactMap { event -> (String, UploadErrorCode)? in
            guard case .upload(let upload) = event, case .rejected(let error) = upload.kind, let fileId = upload.fileId else { return nil }
            return (fileId, error.code)
        }
        #expect(rejected.map(\.0) == ["a", "c"])
        #expect(rejected.map(\.1) == [.invalidFileObject, .fileCountExceeded], "a live id is not re-uploaded; capacity counts restored files")
        let completed = try #require(fixture.durability.stored["trip"]?.result)
        #expect(completed.successful.map(\.fileId) == ["a", "b"], "the whole-batch result includes the previous owner's files")
    }

    @Test func settledBatchesLeaveMemoryOnceRecordedAndComeBackOnTheirNextRecord() async {
        let fixture = Fixture()
        for (index, batchId) in ["x", "y"].enumerated() {
            fixture.registry.handle(Self.job(batchId, files: ["a"]), partition: 0, offset: Int64(index), done: {})
        }
        await fixture.publisher.wait(until: { $0.filter { $0.type == "attache.batch.completed" }.count == 2 })
        #expect(fixture.registry.batchCount == 2, "settled, but their state is not recorded yet")
        let record = RecordCompletion()
        fixture.registry.handle(Self.job("x", files: ["b"]), partition: 0, offset: 2, done: record.done)
        await fixture.publisher.wait(until: { $0.filter { $0.type == "attache.batch.completed" }.count == 3 })
        let loadsBefore = fixture.durability.loads
        fixture.durability.flush()
        await record.wait()
        #expect(fixture.registry.batchCount == 0)
        let control = RecordCompletion()
        fixture.registry.handle(.remove(batchId: "x", fileId: "a"), partition: 0, offset: 3, done: control.done)
        await fixture.publisher.wait(forType: "attache.file.removed")
        #expect(fixture.durability.loads == loadsBefore + 1, "read back from the store")
        fixture.durability.flush()
        await control.wait()
        #expect(fixture.durability.stored["x"]?.attachments.map(\.fileId) == ["b"], "both records applied to one batch")
        #expect(fixture.registry.batchCount == 0)
    }

    @Test func aBatchWhoseFailedFilesKeepStagedBytesStaysUntilTheyAreGivenBack() async {
        let fixture = Fixture(uploader: ScriptedUploader { _, _ in throw UploadError(.s3UploadFailed, "HTTP 503") })
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 0, offset: 1, done: record.done)
        await fixture.publisher.wait(forType: "attache.batch.completed")
        fixture.durability.flush()
        await record.wait()
        #expect(fixture.durability.stored["trip"]?.state(of: "a") == .failed)
        #expect(fixture.registry.batchCount == 1, "a retry would upload the bytes it holds")
        fixture.registry.sweep(idleFor: .seconds(7200), retainFailed: .seconds(3600))
        #expect(fixture.registry.batchCount == 1, "within staging.retainFailed")
        fixture.clock.advance(by: .seconds(3601))
        fixture.registry.sweep(idleFor: .seconds(7200), retainFailed: .seconds(3600))
        #expect(fixture.registry.batchCount == 0, "bytes given back, state recorded: it leaves memory")
        #expect(fixture.durability.forgotten.isEmpty, "left memory, not expired")
    }

    @Test func aHandoverLetsUploadsUnderWayFinishAndLeavesQueuedFilesForTheNextOwner() async {
        let gate = Gate()
        let fixture = Fixture(uploader: ScriptedUploader { transfer, progress in
            progress(1, transfer.staged.size)  // sending: a hold lets it finish
            await gate.wait()
            progress(transfer.staged.size, transfer.staged.size)
        })
        let batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: fixture.configuration, concurrency: 1)
        fixture.durability.store(batch)
        fixture.registry.handle(Self.job(files: ["a", "b"]), partition: 4, offset: 1, done: {})
        fixture.registry.handle(Self.job("other", files: ["x"]), partition: 5, offset: 1, done: {})
        await fixture.publisher.wait(until: { $0.filter { $0.type == "attache.file.progress" }.count >= 2 })
        #expect(await fixture.registry.holdForHandover(partitions: [4], timeout: .zero) == 1, "the upload is still under way")
        async let unfinished = fixture.registry.holdForHandover(partitions: [4], timeout: .seconds(60))
        gate.open()
        #expect(await unfinished == 0)
        let held = fixture.registry.runner(for: "trip")?.snapshot
        #expect(held?.state(of: "a") == .uploaded)
        #expect(held?.state(of: "b") == .queued, "left for the next owner")
        #expect(await fixture.registry.holdForHandover(partitions: [9], timeout: .zero) == 0, "no batch there: nothing to wait for")
    }

    /// A job whose every file is refused at intake (empty data).
    private static func refusedJob(_ batchId: String = "trip", files: [String]) -> JobCommand {
        .upload(UploadJob(requestId: "req-\(files.joined())", batchId: batchId, receiver: Receiver(id: "u", type: .user), sender: "s",
                          parentMessageId: nil, concurrency: nil,
                          files: files.map { FileItem(fileId: $0, name: "\($0).png", mimeType: "image/png", source: .data(Data())) },
                          message: MessageOptions(send: .auto)))
    }

    /// A job whose files are all refused leaves its batch settled at once: it is applied to the batch as a value —
    /// no runner, no session — its events go out in order, and its record still waits for the snapshot.
    @Test func aJobRefusedWholeSettlesWithoutARunnerAndItsRecordWaitsForItsSnapshot() async {
        let fixture = Fixture()
        let record = RecordCompletion()

        fixture.registry.handle(Self.refusedJob(files: ["a", "b"]), partition: 1, offset: 7, done: record.done)

        #expect(fixture.publisher.types == ["attache.file.rejected", "attache.file.rejected", "attache.batch.completed"])
        #expect(fixture.publisher.published.map(\.sequence) == [1, 2, 3])
        #expect(fixture.registry.batchCount == 0, "no runner was made for it")
        #expect(record.calls == 0, "its snapshot is still owed")
        fixture.durability.flush()
        await record.wait()
        let stored = fixture.durability.stored["trip"]
        #expect(stored?.appliedThrough == 7)
        #expect(stored?.result.rejected.map(\.fileId) == ["a", "b"])
        #expect(fixture.sender.messages.isEmpty, "nothing uploaded: nothing to send")
        #expect(fixture.registry.evictedCount == 1, "it counts as a batch that left memory")
    }

    /// The next job for that batch, before the first one's snapshot is recorded, finds the batch as the first left
    /// it — its rejection kept, its event numbers continued — and takes the usual path with a runner.
    @Test func aBatchSettledAsAValueIsContinuedByTheNextJobBeforeItsSnapshotIsRecorded() async {
        let fixture = Fixture()
        let first = RecordCompletion(), second = RecordCompletion()

        fixture.registry.handle(Self.refusedJob(files: ["a"]), partition: 1, offset: 7, done: first.done)
        fixture.registry.handle(Self.job(files: ["b"]), partition: 1, offset: 8, done: second.done)
        await fixture.publisher.wait(forType: "attache.batch.completed", count: 2)

        let sequences = fixture.publisher.published.map(\.sequence)
        #expect(sequences == Array(1...UInt64(sequences.count)), "one batch, numbered on")
        fixture.durability.flush()
        await first.wait()
        await second.wait()
        let stored = fixture.durability.stored["trip"]
        #expect(stored?.appliedThrough == 8)
        #expect(stored?.state(of: "a") == .rejected && stored?.state(of: "b") == .uploaded)
    }

    @Test func clearingABatchRecordsItClearedAndAJobAfterItContinuesTheBatch() async throws {
        let fixture = Fixture()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 0, offset: 1, done: {})
        await fixture.publisher.wait(forType: "attache.batch.completed")
        fixture.durability.flush()
        let clear = RecordCompletion()
        fixture.registry.handle(.clear(batchId: "trip"), partition: 0, offset: 2, done: clear.done)
        await fixture.publisher.wait(forType: "attache.file.removed")
        fixture.durability.flush()
        await clear.wait()
        #expect(fixture.durability.forgotten.isEmpty, "a clear is recorded as a cleared snapshot, not a tombstone (§4.1)")
        let cleared = try #require(fixture.durability.stored["trip"])
        #expect(cleared.isCleared && cleared.count == 0)
        #expect(cleared.appliedThrough == 2, "a replay of the records before the clear must not bring its files back")

        let again = RecordCompletion()
        fixture.registry.handle(Self.job(files: ["a"]), partition: 0, offset: 3, done: again.done)
        await fixture.publisher.wait(forType: "attache.batch.completed", count: 2)
        fixture.durability.flush()
        await again.wait()
        let sequences = fixture.publisher.published.map(\.sequence)
        #expect(sequences == Array(1...UInt64(sequences.count)), "the re-created batch numbers on from the cleared one")
        let uploads = fixture.publisher.events.filter { $0.type == "attache.file.uploaded" }.compactMap(\.stableName)
        #expect(uploads.count == 2 && Set(uploads).count == 2, "the re-added file's upload is a new event")
        #expect(fixture.durability.stored["trip"]?.isCleared == false)
        #expect(fixture.durability.stored["trip"]?.state(of: "a") == .uploaded)
    }

    @Test func aControlForAClearedBatchFindsNoBatch() async {
        let fixture = Fixture()
        var batch = UploadBatch(context: BatchContext(batchId: "trip", receiver: Receiver(id: "u", type: .user)),
                                configuration: fixture.configuration)
        _ = batch.clear(now: Date(timeIntervalSince1970: 1_800_000_000))
        fixture.durability.store(batch)
        let send = RecordCompletion()
        fixture.registry.handle(.send(batchId: "trip"), partition: 0, offset: 5, done: send.done)
        await send.wait()
        #expect(fixture.registry.batchCount == 0)
        #expect(fixture.publisher.events.isEmpty)
    }
}

/// Settles files of a bare batch by hand, for building the state a previous owner left.
private struct BatchHarnessLite {
    var batch: UploadBatch
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    mutating func upload(_ fileId: String) {
        var effects = batch.add([FileItem(fileId: fileId, name: "\(fileId).png", mimeType: "image/png", source: .url("https://x.test/\(fileId)"))],
                                requestId: "r1", now: now)
        while let action = effects.actions.first {
            effects.actions.removeFirst()
            switch action {
            case .stage(let token, _, _, _):
                let next = batch.staged(token, .success(StagedFile(path: "/s/\(fileId)", size: 10, sha256: "h")), now: now)
                effects.actions += next.actions
            case .presign(let calls):
                let answer = Dictionary(uniqueKeysWithValues: calls.map {
                    ($0.file.fileId, PresignOutcome.target(UploadTarget(uploadURL: "https://s.test/\($0.file.fileId)", fileURL: "https://cdn.test/\($0.file.fileId)")))
                })
                effects.actions += batch.presigned(calls, .success(answer), now: now).actions
            case .upload(let token, _):
                effects.actions += batch.uploaded(token, .success(()), now: now).actions
            default:
                break
            }
        }
    }
}
