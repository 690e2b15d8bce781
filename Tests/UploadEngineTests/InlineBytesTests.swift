import Foundation
import Testing
@testable import UploadEngine
import TestSupport

/// Inline bytes stay in the batch only while a file may still be staged: an idle batch is kept for
/// `worker.batchTTL`, and holding every settled file's bytes that long would grow memory with every job.
@Suite(.timeLimit(.minutes(1))) struct InlineBytesTests {
    private static let bytes = Data(repeating: 7, count: 4096)

    private func runner(uploader: ScriptedUploader = ScriptedUploader()) -> BatchRunner {
        var configuration = EngineConfiguration()
        configuration.retry.maxAttempts = 1
        let batch = UploadBatch(context: BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user)),
                                configuration: configuration)
        return BatchRunner(batch: batch, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(),
                           clock: ManualClock())
    }

    private func source(of fileId: String, in runner: BatchRunner) -> FileSource? {
        runner.snapshot.entries.first { $0.fileId == fileId }?.item.source
    }

    @Test func anUploadedFileKeepsOnlyTheSizeOfItsInlineBytes() async {
        let runner = runner()
        let recorder = EventRecorder()
        runner.setGlobalObserver(recorder.observer)
        runner.upload([FileItem(fileId: "f1", name: "a.bin", source: .data(Self.bytes))], requestId: "r")
        await recorder.waitForCompletions(1)

        #expect(runner.snapshot.attachments.map(\.size) == [4096])
        #expect(source(of: "f1", in: runner) == .releasedData(byteCount: 4096))
    }

    @Test func aFileRejectedAtIntakeOrLaterKeepsOnlyTheSize() async {
        let runner = runner()
        let recorder = EventRecorder()
        runner.setGlobalObserver(recorder.observer)
        let negativeSize = FileItem(fileId: "f1", name: "a.bin", declaredSize: -1, source: .data(Self.bytes))
        runner.upload([negativeSize], requestId: "r1")
        await recorder.waitForCompletions(1)
        #expect(source(of: "f1", in: runner) == .releasedData(byteCount: 4096))

        // Rejected after staging (the staged size is over the limit), not at intake.
        let tooBig = BatchRunner(
            batch: UploadBatch(context: BatchContext(batchId: "c", receiver: Receiver(id: "u", type: .user)),
                               configuration: { var c = EngineConfiguration(); c.limits.fileSizeMax = 1024; return c }()),
            presigner: ScriptedPresigner(), uploader: ScriptedUploader(),
            stager: ScriptedStager { StagedFile(path: "/staging/\($0.fileId)", size: 4096, sha256: "x") }, clock: ManualClock())
        let other = EventRecorder()
        tooBig.setGlobalObserver(other.observer)
        tooBig.upload([FileItem(fileId: "f2", name: "a.bin", source: .data(Data(count: 512)))], requestId: "r2")
        await other.waitForCompletions(1)
        #expect(tooBig.snapshot.entries.first?.state == .rejected)
        #expect(tooBig.snapshot.entries.first?.error?.code == .fileSizeExceeded)
        #expect(tooBig.snapshot.entries.first?.item.source == .releasedData(byteCount: 512))
    }

    @Test func aFailedFileKeepsItsInlineBytesForARetry() async {
        let runner = runner(uploader: ScriptedUploader { _, _ in throw UploadError(.s3UploadFailed, "HTTP 503") })
        let recorder = EventRecorder()
        runner.setGlobalObserver(recorder.observer)
        runner.upload([FileItem(fileId: "f1", name: "a.bin", source: .data(Self.bytes))], requestId: "r")
        await recorder.waitForCompletions(1)

        #expect(runner.snapshot.entries.first?.state == .failed)
        #expect(source(of: "f1", in: runner) == .data(Self.bytes))
    }
}
