import Foundation
import Synchronization
import Testing
import UploadEngine
import TestSupport

/// The driver: real tasks, fake collaborators, a manual clock.
@Suite(.timeLimit(.minutes(1))) struct BatchRunnerTests {
    private func runner(presigner: ScriptedPresigner = ScriptedPresigner(), uploader: ScriptedUploader = ScriptedUploader(),
                        stager: ScriptedStager = ScriptedStager(), clock: ManualClock = ManualClock(),
                        configure: (inout EngineConfiguration) -> Void = { _ in }, concurrency: Int? = nil,
                        batchId: String = "trip-42", timers: DeadlineScheduler? = nil) -> BatchRunner {
        var configuration = EngineConfiguration()
        configure(&configuration)
        let batch = UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "u1", type: .user)),
                                configuration: configuration, concurrency: concurrency, random: JitterRandom(seed: 3))
        return BatchRunner(batch: batch, presigner: presigner, uploader: uploader, stager: stager, clock: clock, timers: timers)
    }

    private static let photo = FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .data(Data(count: 2048)))

    @Test func aFileFlowsThroughStagePresignAndUpload() async {
        let presigner = ScriptedPresigner()
        let uploader = ScriptedUploader()
        let recorder = EventRecorder()
        let runner = runner(presigner: presigner, uploader: uploader)
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "req-1")
        await recorder.waitForCompletions(1)

        #expect(presigner.calls == [["f1"]])
        #expect(uploader.calls.map(\.target.uploadURL) == ["https://store.test/up/f1?sig=secret"])
        let kinds = recorder.events.map(\.kind)
        let attachment = UploadEngine.Attachment(fileId: "f1", name: "photo.jpg", url: "https://cdn.test/f1", mimeType: "image/jpeg", size: 2048, sha256: "sha-f1")
        #expect(kinds == [.progress(loaded: 2048, total: 2048, percent: 100), .uploaded(attachment),
                          .completed(UploadResult(batchId: "trip-42", successful: [.init(fileId: "f1", attachment: attachment)]))])
        #expect(recorder.events.allSatisfy { $0.batchId == "trip-42" && $0.requestId == "req-1" })
        #expect(runner.snapshot.attachments == [attachment])
    }

    @Test func perCallObserversHearOnlyTheirFilesAndBeforeTheGlobalOne() async {
        let order = Mutex<[String]>([])
        let global = EventRecorder()
        let runner = runner(concurrency: 2)
        runner.setGlobalObserver { event in
            order.withLock { $0.append("global:\(event.fileId ?? "-")") }
            global.record(event)
        }
        runner.upload([Self.photo], requestId: "r1") { event in order.withLock { $0.append("r1:\(event.fileId ?? "-")") } }
        runner.upload([FileItem(fileId: "f2", name: "b.pdf", source: .data(Data(count: 10)))], requestId: "r2") { event in
            order.withLock { $0.append("r2:\(event.fileId ?? "-")") }
        }
        await global.wait { events in events.filter { if case .uploaded = $0.kind { true } else { false } }.count == 2 }
        await global.waitForCompletions(1)
        let seen = order.withLock { $0 }
        #expect(!seen.contains("r1:f2") && !seen.contains("r2:f1"))
        for (index, entry) in seen.enumerated() where entry.hasPrefix("r1:f1") || entry.hasPrefix("r2:f2") {
            #expect(seen[index + 1] == "global:" + entry.split(separator: ":")[1])
        }
    }

    @Test func aStalledUploadFailsAfterThirtyVirtualSeconds() async {
        let clock = ManualClock()
        let started = Gate()
        let cancelled = Gate()
        let uploader = ScriptedUploader { _, _ in
            started.open()
            do { try await Task.sleep(for: .seconds(3600)) } catch { cancelled.open() }
        }
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader, clock: clock, configure: { $0.retry.maxAttempts = 1 })
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        await waitFor("the upload to start") { await started.wait() }
        clock.advance(by: .seconds(29))
        #expect(recorder.events.isEmpty)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletions(1)
        await waitFor("the upload to be cancelled") { await cancelled.wait() }
        let failure = recorder.events.first { if case .failed = $0.kind { true } else { false } }
        #expect(failure?.kind == .failed(UploadError(.uploadStalled, "no progress for 30s; the upload was aborted"), attempt: 1, willRetry: false))
    }

    @Test func batchesSharingOneSchedulerEachStallOnTheirOwnDeadlineWithOneSleeper() async {
        let clock = ManualClock()
        let timers = DeadlineScheduler(clock: clock)
        let started = Locked(0)
        let uploader = ScriptedUploader { _, _ in
            started.update { $0 += 1 }
            try? await Task.sleep(for: .seconds(3600))
        }
        let recorder = EventRecorder()
        let first = runner(uploader: uploader, clock: clock, configure: { $0.retry.maxAttempts = 1 }, batchId: "a", timers: timers)
        let second = runner(uploader: uploader, clock: clock, configure: { $0.retry.maxAttempts = 1 }, batchId: "b", timers: timers)
        first.setGlobalObserver(recorder.observer)
        second.setGlobalObserver(recorder.observer)
        first.upload([Self.photo], requestId: "r1")
        await yieldUntil { started.value == 1 && clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        second.upload([Self.photo], requestId: "r2")
        await yieldUntil { started.value == 2 && timers.scheduledCount == 2 }
        #expect(clock.sleeperCount == 1)

        clock.advance(by: .seconds(20))
        await recorder.waitForCompletions(1)
        #expect(recorder.events.filter { if case .completed = $0.kind { true } else { false } }.map(\.batchId) == ["a"])
        #expect(second.status == .inProgress)

        clock.advance(by: .seconds(10))
        await recorder.waitForCompletions(2)
        #expect(second.status == .idle)
        #expect(timers.scheduledCount == 0)
    }

    @Test func automaticRetriesWaitForTheirBackoffOnTheClock() async {
        let clock = ManualClock()
        let attempts = Mutex(0)
        let uploader = ScriptedUploader { transfer, progress in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt == 1 { throw UploadError(.s3UploadFailed, "HTTP 503", retryAfter: .seconds(5)) }
            progress(transfer.staged.size, transfer.staged.size)
        }
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader, clock: clock)
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        await recorder.wait { $0.contains { if case .failed(_, 1, true) = $0.kind { true } else { false } } }
        #expect(runner.snapshot.status == .inProgress)
        clock.advance(by: .seconds(4))
        #expect(attempts.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        await recorder.waitForCompletions(1)
        #expect(attempts.withLock { $0 } == 2)
        #expect(runner.snapshot.attachments.map(\.fileId) == ["f1"])
    }

    @Test func concurrencyCapsTheUploadsRunningAtOnce() async {
        let uploader = ScriptedUploader { transfer, progress in
            await Task.yield()
            progress(transfer.staged.size, transfer.staged.size)
        }
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader, concurrency: 3)
        runner.setGlobalObserver(recorder.observer)
        let items = (1...10).map { FileItem(fileId: "f\($0)", name: "f\($0).bin", source: .data(Data(count: 100 * $0))) }
        runner.upload(items, requestId: "r1")
        await recorder.waitForCompletions(1)
        #expect(uploader.peakConcurrency <= 3)
        #expect(runner.snapshot.attachments.map(\.fileId) == items.map(\.fileId))
    }

    @Test func removingAnUploadingFileCancelsItsTransferSilently() async {
        let started = Gate()
        let cancelled = Gate()
        let uploader = ScriptedUploader { _, _ in
            started.open()
            do { try await Task.sleep(for: .seconds(3600)) } catch {
                cancelled.open()
                throw error
            }
        }
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader)
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        await waitFor("the upload to start") { await started.wait() }
        #expect(runner.remove(fileId: "f1") == .applied)
        await waitFor("the upload to be cancelled") { await cancelled.wait() }
        await recorder.waitForCompletions(1)
        #expect(recorder.events.map(\.kind) == [.removed, .completed(UploadResult(batchId: "trip-42"))])
    }

    @Test func anAttemptStagesPresignsAndUploadsInOneTask() async {
        let tasks = Mutex<[String: Int]>([:])
        @Sendable func note(_ step: String) {
            let task = withUnsafeCurrentTask { $0?.hashValue }
            tasks.withLock { $0[step] = task }
        }
        let stager = ScriptedStager { file in
            note("stage")
            return try await ScriptedStager.fromInlineData(file)
        }
        let presigner = ScriptedPresigner { files in
            note("presign")
            return try await ScriptedPresigner.validTargets(files)
        }
        let uploader = ScriptedUploader { transfer, progress in
            note("upload")
            progress(transfer.staged.size, transfer.staged.size)
        }
        let recorder = EventRecorder()
        let runner = runner(presigner: presigner, uploader: uploader, stager: stager)
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        await recorder.waitForCompletions(1)
        let seen = tasks.withLock { $0 }
        #expect(seen.keys.sorted() == ["presign", "stage", "upload"])
        // The presign task would still be alive when a separate upload task was made, so equal ids are one task.
        #expect(Set(seen.values).count == 1, "\(seen)")
    }

    /// A runner of one attempt per file that took the photo to its end (by default: failed for good), its events
    /// recorded.
    private func settledPhoto(
        stager: ScriptedStager,
        uploader: ScriptedUploader = ScriptedUploader { _, _ in throw UploadError(.s3UploadFailed, "down") }
    ) async -> (BatchRunner, EventRecorder) {
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader, stager: stager, configure: { $0.retry.maxAttempts = 1 })
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        await recorder.waitForCompletions(1)
        return (runner, recorder)
    }

    @Test func retainedBytesAreReleasedWhenTheFileLeavesTheBatch() async {
        let stager = ScriptedStager()
        let (runner, _) = await settledPhoto(stager: stager)
        #expect(stager.released.isEmpty)
        runner.clear()
        await stager.waitForReleases(1)
        #expect(stager.released.map(\.path) == ["/staging/f1"])
    }
}

extension BatchRunnerTests {
    @Test func anAbandonedRunnerGivesBackEveryStagedFileAndReportsNothing() async {
        let stageGate = Gate()
        let uploadStarted = Gate()
        let stager = ScriptedStager { file in
            if file.fileId == "late" { await stageGate.wait() }
            return try await ScriptedStager.fromInlineData(file)
        }
        let uploader = ScriptedUploader { _, _ in
            uploadStarted.open()
            try await Task.sleep(for: .seconds(3600))
        }
        let recorder = EventRecorder()
        let runner = runner(uploader: uploader, stager: stager, concurrency: 2)
        runner.setGlobalObserver(recorder.observer)
        runner.upload([Self.photo], requestId: "r1")
        // A second call: its own presign cohort, so the photo's upload does not wait for this stage.
        runner.upload([FileItem(fileId: "late", name: "late.bin", source: .data(Data(count: 10)))], requestId: "r2")
        await waitFor("the upload to start") { await uploadStarted.wait() }
        runner.abandon()
        stageGate.open()
        await stager.waitForReleases(2)
        #expect(Set(stager.released.map(\.path)) == ["/staging/f1", "/staging/late"])
        #expect(recorder.events.isEmpty)
        #expect(runner.retry(fileId: "f1") == .notApplicable)
    }

    @Test func anAbandonedRunnerStopsItsPresignCallsButAFileRemovedStopsNone() async {
        let asked = Locked(0), bothAsked = Gate(), bothCancelled = Gate()
        let callsCancelled = Locked(0)
        let presigner = ScriptedPresigner { _ in
            if asked.update({ $0 += 1; return $0 }) == 2 { bothAsked.open() }
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                if callsCancelled.update({ $0 += 1; return $0 }) == 2 { bothCancelled.open() }
                throw error
            }
            return [:]
        }
        let recorder = EventRecorder()
        let runner = runner(presigner: presigner, concurrency: 3)
        runner.setGlobalObserver(recorder.observer)
        let second = FileItem(fileId: "f2", name: "b.bin", source: .data(Data(count: 10)))
        runner.upload([Self.photo, second], requestId: "r1")
        // A second call: its own cohort, so its own presign call, under way beside the first.
        runner.upload([FileItem(fileId: "f3", name: "c.bin", source: .data(Data(count: 10)))], requestId: "r2")
        await waitFor("both presign calls") { await bothAsked.wait() }
        // One call answers for both files: removing one leaves the call to answer for the other.
        #expect(runner.remove(fileId: "f2") == .applied)
        #expect(callsCancelled.value == 0, "a file's remove stopped the call the other file waits on")
        runner.abandon()
        await waitFor("both calls to be cancelled") { await bothCancelled.wait() }
        #expect(callsCancelled.value == 2)
        #expect(Set(presigner.calls) == [["f1", "f2"], ["f3"]])
        #expect(!recorder.events.contains { if case .failed = $0.kind { true } else { false } },
                "the cancelled call's failure must not be told: the batch belongs to its next owner")
    }

    /// Rejected at intake (no data): its event comes at once.
    private static func empty(_ id: String) -> FileItem { FileItem(fileId: id, name: "\(id).bin", source: .data(Data())) }

    @Test func eventsOnTheirWayWhenARunnerIsAbandonedStillReachTheObserver() async {
        let runner = runner()
        let delivering = Gate(), finished = Gate()
        let proceed = DispatchSemaphore(value: 0)
        let first = Locked(true), heard = Locked<[String]>([])
        runner.setGlobalObserver { event in
            if first.update({ was in defer { was = false }; return was }) {
                delivering.open()
                proceed.wait()  // on the thread below: this delivery round stays under way
            }
            if case .rejected = event.kind { heard.update { $0.append(event.fileId ?? "") } }
        }
        Thread {
            runner.upload([Self.empty("a")], requestId: "r1")
            finished.open()
        }.start()
        await waitFor("the delivery to begin") { await delivering.wait() }
        // Rejected at intake while the round above is under way: its event waits in the outbox for that round.
        runner.upload([Self.empty("b")], requestId: "r2")
        runner.abandon()
        proceed.signal()
        await waitFor("the batch to finish") { await finished.wait() }
        #expect(heard.value == ["a", "b"], "what happened before the abandon is told, even though nothing happens after it")
    }

    @Test func aHeldRunnerSaysWhenItsUploadsUnderWayAreDoneAndStartsNoOther() async {
        let gate = Gate()
        let uploads = Locked<[String]>([])
        let uploader = ScriptedUploader { transfer, progress in
            progress(1, transfer.staged.size)  // sending: a hold lets it finish
            uploads.update { $0.append(transfer.target.fileURL) }
            await gate.wait()
            progress(transfer.staged.size, transfer.staged.size)
        }
        let runner = runner(uploader: uploader, concurrency: 1)
        let recorder = EventRecorder()
        runner.setGlobalObserver(recorder.observer)
        let second = FileItem(fileId: "f2", name: "b.jpg", mimeType: "image/jpeg", source: .data(Data(count: 16)))
        runner.upload([Self.photo, second], requestId: "r1")
        await yieldUntil { uploads.value.count == 1 }
        let quiet = Gate(), told = Locked(false), heardBeforeQuiet = Locked(false)
        runner.holdForHandover {
            let heard = recorder.events.contains { if case .uploaded = $0.kind { $0.fileId == "f1" } else { false } }
            heardBeforeQuiet.update { $0 = heard }
            told.update { $0 = true }
            quiet.open()
        }
        #expect(!told.value, "an upload is under way")
        gate.open()
        await waitFor("the hold to end") { await quiet.wait() }
        // The partition is handed over once the hold ends, with a snapshot saying f1 is uploaded: its event must be out.
        #expect(heardBeforeQuiet.value, "the upload's event reached the observer before the hold said it was over")
        #expect(runner.snapshot.state(of: "f1") == .uploaded)
        #expect(runner.snapshot.state(of: "f2") == .queued, "its slot is not refilled")
        #expect(uploads.value.count == 1)

        let idle = Gate()
        runner.holdForHandover { idle.open() }
        await waitFor("the hold to end") { await idle.wait() }  // nothing in flight: told at once
    }
}

/// Sources read in place: the stager's word on keeping them, and how an attempt ends.
extension BatchRunnerTests {
    private static let inPlace: ScriptedStager.Script = { file in
        StagedFile(bytes: .source(MemorySource(count: 2048)), size: 2048, sha256: "", mimeType: file.mimeType)
    }

    @Test func aSourceTheStagerWillNotKeepIsGivenBackAtOnceAndTheRetryStagesItAgain() async {
        let stager = ScriptedStager(Self.inPlace, keeps: { _ in false })
        let (runner, recorder) = await settledPhoto(stager: stager)
        await stager.waitForReleases(1)

        #expect(!runner.holdsRetainedBytes)
        #expect(runner.retry(fileId: "f1") == .applied)
        await recorder.waitForCompletions(2)
        #expect(stager.stagedFileIds == ["f1", "f1"])
    }

    @Test func theDigestAnAttemptEndsWithIsTheAttachments() async {
        let stager = ScriptedStager(Self.inPlace, finish: { _, uploaded in uploaded ? "digest-read-on-the-way" : "" })
        let (runner, _) = await settledPhoto(stager: stager, uploader: ScriptedUploader())

        #expect(runner.snapshot.attachment(fileId: "f1")?.sha256 == "digest-read-on-the-way")
    }

    @Test func aSourceChangedInPlaceFailsAnUploadThatSucceeded() async {
        let changed = UploadError(.sourceFetchFailed, "source.path changed while it was uploaded", retryable: true)
        let stager = ScriptedStager(Self.inPlace, finish: { _, _ in throw changed })
        let (runner, _) = await settledPhoto(stager: stager, uploader: ScriptedUploader())
        await stager.waitForReleases(1)

        #expect(runner.snapshot.result.failed.map(\.error.code) == [UploadErrorCode.sourceFetchFailed.rawValue])
        #expect(!runner.holdsRetainedBytes, "the retry opens the source again")
    }
}
