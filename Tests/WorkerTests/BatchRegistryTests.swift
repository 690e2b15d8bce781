import Foundation
@testable import Records
import Synchronization
import TestSupport
import Testing
import UploadEngine
@testable import Worker

@Suite(.timeLimit(.minutes(1))) struct BatchRegistryTests {
    private struct Fixture {
        let publisher = RecordingPublisher()
        let sender: RecordingSender
        let registry: BatchRegistry
        let clock = ManualClock()

        init(sender: RecordingSender = RecordingSender(), uploader: ScriptedUploader = ScriptedUploader(),
             configure: (inout EngineConfiguration) -> Void = { _ in }) {
            self.sender = sender
            var configuration = EngineConfiguration()
            configuration.concurrency = 4
            configure(&configuration)
            let clock = self.clock
            registry = BatchRegistry(configuration: configuration, dependencies: .init(
                makeRunner: { BatchRunner(batch: $0, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(), poster: $1, clock: clock) },
                publisher: publisher, sender: sender, clock: clock))
        }
    }

    private static func job(_ batchId: String = "trip-42", request: String = "req-1", files: [FileItem],
                            message: MessageOptions = MessageOptions(caption: "Trip photos", metadata: ["trip": .int(42)])) -> JobCommand {
        .upload(UploadJob(requestId: request, batchId: batchId, receiver: Receiver(id: "uid-1", type: .user), sender: "uid-7",
                          parentMessageId: "1234", concurrency: nil, files: files, message: message))
    }

    private static func file(_ id: String, _ mime: String, size: Int = 64) -> FileItem {
        FileItem(fileId: id, name: "\(id).\(mime.split(separator: "/")[1])", mimeType: mime, source: .data(Data(count: size)))
    }

    @Test func aDrainedBatchIsSentGroupedByTypeAndTheJobIsLetGoAfterTheSend() async {
        let fixture = Fixture()
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("doc", "application/pdf"), Self.file("img", "image/jpeg"),
                                                 Self.file("song", "audio/mpeg"), Self.file("clip", "video/mp4"),
                                                 Self.file("img2", "image/png")]), done: record.done)
        await fixture.publisher.wait(forType: "attache.message.sent", count: 4)
        await record.wait()

        let messages = fixture.sender.messages
        #expect(messages.map(\.type) == [.image, .video, .audio, .file])
        #expect(messages.map { $0.attachments.map(\.fileId) } == [["img", "img2"], ["clip"], ["song"], ["doc"]])
        #expect(messages.map(\.caption) == ["Trip photos", nil, nil, nil])
        #expect(messages.allSatisfy { $0.metadata == ["trip": .int(42), "batchId": .string("trip-42")] })
        #expect(messages.allSatisfy { $0.receiver == Receiver(id: "uid-1", type: .user) && $0.sender == "uid-7" && $0.parentId == "1234" })
        // The job's files took generations 0 to 4 in input order; each uploaded at its first attempt.
        #expect(messages[0].muid == MessagePlan.muid(batchId: "trip-42", fileIds: ["img", "img2"], generations: [1, 4]))
        #expect(record.calls == 1)
        let sequences = fixture.publisher.published.map(\.sequence)
        #expect(sequences == Array(1...UInt64(sequences.count)), "sequence increases per batch")
    }

    @Test func aRecordIsNotLetGoWhileItsFilesAreInFlight() async {
        let gate = Gate()
        let fixture = Fixture(uploader: ScriptedUploader { transfer, progress in
            await gate.wait()
            progress(transfer.staged.size, transfer.staged.size)
        })
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")]), done: record.done)
        #expect(record.calls == 0)
        #expect(fixture.registry.busyBatchCount == 1)
        gate.open()
        await fixture.publisher.wait(forType: "attache.message.sent")
        await record.wait()
        #expect(record.calls == 1)
        #expect(fixture.registry.busyBatchCount == 0)
    }

    @Test func manualModeWaitsForASendControl() async {
        let fixture = Fixture()
        let job = RecordCompletion()
        let control = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")], message: MessageOptions(send: .manual)), done: job.done)
        await fixture.publisher.wait(forType: "attache.batch.completed")
        await job.wait()
        #expect(job.calls == 1)
        #expect(fixture.sender.messages.isEmpty)
        fixture.registry.handle(.send(batchId: "trip-42"), done: control.done)
        await fixture.publisher.wait(forType: "attache.message.sent")
        await control.wait()
        #expect(control.calls == 1)
        #expect(fixture.sender.messages.map { $0.attachments.map(\.fileId) } == [["a"]])
    }

    @Test func jobsJoiningABatchSendOnlyWhatWasNotSentBefore() async {
        let fixture = Fixture()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")]), done: {})
        await fixture.publisher.wait(forType: "attache.message.sent")
        fixture.registry.handle(Self.job(request: "req-2", files: [Self.file("b", "image/png")]), done: {})
        await fixture.publisher.wait(forType: "attache.message.sent", count: 2)
        let messages = fixture.sender.messages
        #expect(messages.map { $0.attachments.map(\.fileId) } == [["a"], ["b"]])
        #expect(messages.map(\.caption) == ["Trip photos", nil], "the caption goes on the batch's first message only")
        let completions = fixture.publisher.events.compactMap { event -> UploadResult? in
            if case .upload(let e) = event, case .completed(let result) = e.kind { return result }
            return nil
        }
        #expect(completions.map { $0.successful.map(\.fileId) } == [["a"], ["a", "b"]])
    }

    @Test func aFailedSendIsRetriedAloneAndReportedPerAttempt() async {
        let fixture = Fixture(sender: RecordingSender { attempt in
            attempt <= 2 ? MessageSendError("HTTP 503", retryable: true) : nil
        })
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")]), done: {})
        await fixture.publisher.wait(forType: "attache.message.failed")
        fixture.clock.advance(by: .seconds(1))
        await fixture.publisher.wait(forType: "attache.message.failed", count: 2)
        fixture.clock.advance(by: .seconds(2))
        await fixture.publisher.wait(forType: "attache.message.sent")
        let failures = fixture.publisher.events.compactMap { event -> (Int, Bool)? in
            if case .upload(let upload) = event, case .messageFailed(_, _, let attempt, let willRetry) = upload.kind { return (attempt, willRetry) }
            return nil
        }
        #expect(failures.map(\.0) == [1, 2])
        #expect(failures.allSatisfy { $0.1 })
        #expect(fixture.publisher.types.filter { $0 == "attache.file.uploaded" }.count == 1, "a send retry never re-uploads")
    }

    @Test func aSendThatRunsOutOfAttemptsStillLetsTheJobGo() async {
        let fixture = Fixture(sender: RecordingSender { _ in MessageSendError("HTTP 400 bad receiver", retryable: false) })
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")]), done: record.done)
        await fixture.publisher.wait(forType: "attache.message.failed")
        await record.wait()
        #expect(record.calls == 1)
        guard case .upload(let last) = fixture.publisher.events.last(where: { $0.type == "attache.message.failed" }),
              case .messageFailed(_, let error, _, let willRetry) = last.kind else {
            Issue.record("no failure event")
            return
        }
        #expect(!willRetry)
        #expect(error.code.rawValue == "ERR_MESSAGE_SEND_FAILED")
    }

    @Test func controlsForAnUnknownBatchAreLetGoAtOnce() {
        let fixture = Fixture()
        let record = RecordCompletion()
        fixture.registry.handle(.retry(batchId: "nope", fileId: "f1"), done: record.done)
        #expect(record.calls == 1)
        #expect(fixture.publisher.events.isEmpty)
    }

    @Test func abandonedBatchesAreForgottenWithTheirRecordsUncommitted() async {
        let gate = Gate()
        let fixture = Fixture(uploader: ScriptedUploader { _, _ in await gate.wait() })
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")]), partition: 3, done: record.done)
        fixture.registry.abandon(partitions: [3])
        gate.open()
        #expect(fixture.registry.batchCount == 0)
        #expect(record.calls == 0)
    }

    @Test func idleBatchesAreSweptAfterTheirTTL() async {
        let fixture = Fixture()
        let record = RecordCompletion()
        fixture.registry.handle(Self.job(files: [Self.file("a", "image/png")], message: MessageOptions(send: .none)), done: record.done)
        await record.wait()
        fixture.registry.sweep(idleFor: .seconds(3600), retainFailed: .seconds(3600))
        #expect(fixture.registry.batchCount == 1)
        fixture.clock.advance(by: .seconds(3601))
        fixture.registry.sweep(idleFor: .seconds(3600), retainFailed: .seconds(3600))
        #expect(fixture.registry.batchCount == 0)
    }
    /// A sweep that found a batch expired and a record arriving for it race: the record must not join a batch the
    /// sweep then drops (it would wait on a batch nobody holds, its offset never committed). Timing-dependent, so
    /// many records, each racing a sweep on a thread of its own.
    @Test func aRecordArrivingAsItsBatchExpiresIsStillLetGo() async {
        let fixture = Fixture()
        let record = RecordCompletion()
        let stop = Atomic<Bool>(false)
        let stopped = Gate()
        let (registry, clock) = (fixture.registry, fixture.clock)
        Thread {
            while !stop.load(ordering: .relaxed) {
                clock.advance(by: .seconds(3601))
                registry.sweep(idleFor: .seconds(3600), retainFailed: .seconds(3600))
            }
            stopped.open()
        }.start()
        let jobs = 3_000
        for index in 0..<jobs {
            registry.handle(Self.job(request: "r\(index)", files: [Self.file("f\(index % 5)", "image/png")],
                                     message: MessageOptions(send: .none)), done: record.done)
            if index % 8 == 0 { await Task.yield() }
        }
        await record.wait(for: jobs)
        stop.store(true, ordering: .relaxed)
        await stopped.wait()
        #expect(record.calls == jobs)
    }

    @Test func theBusyObserverStaysOneCallAfterManyChanges() async {
        // A closure kept as a Mutex's value itself gained a reabstraction layer on every access: after some ten
        // thousand jobs, each change of the busy count walked a chain of thunks as long as the history (and a
        // deep enough one overflows the stack).
        struct Discarding: EventPublisher {
            func publish(_ event: WorkerEvent, sequence: UInt64) {}
            func whenDelivered(_ action: @escaping @Sendable () -> Void) { action() }
        }
        let registry = BatchRegistry(configuration: EngineConfiguration(), dependencies: .init(
            makeRunner: { BatchRunner(batch: $0, presigner: ScriptedPresigner(), uploader: ScriptedUploader(), stager: ScriptedStager(), poster: $1) },
            publisher: Discarding(), sender: nil))
        let changes = Atomic<Int>(0)
        registry.onBusyChange { changes.add(1, ordering: .relaxed) }
        // Quadratic before: some 10⁹ thunk calls here (10,000 jobs took 10 s instead of 0.6), past the time limit.
        let count = 30_000
        let done = Atomic<Int>(0)
        for index in 0..<count {
            registry.handle(Self.job("b\(index)", files: [FileItem(fileId: "f", name: "f.png", mimeType: "image/png", source: .data(Data()))]),
                                    done: { done.add(1, ordering: .relaxed) })
        }
        await yieldUntil { done.load(ordering: .relaxed) == count }
        #expect(changes.load(ordering: .relaxed) >= count, "each refused job made its batch busy and idle again")
    }
}
