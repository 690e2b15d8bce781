import Foundation
import S3
@testable import Staging
import TestSupport
import Testing
import UploadEngine

/// A failed `path` file handed to another worker (DESIGN §4.1): its open source stayed with the old owner, so the
/// new owner's retry opens the path again, reads it in place and reports its digest.
@Suite(.timeLimit(.minutes(1))) struct PathRestagingTests {
    private static let context = BatchContext(batchId: "trip-42", receiver: Receiver(id: "u1", type: .user))

    /// An uploader that reads every byte of what it is given, as a real one does, and keeps the bytes it read
    /// (never the transfer: holding it would hold the source open).
    private struct ReadingUploader: Uploader {
        let read = Locked<Data?>(nil)
        let failing: Bool

        func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws {
            guard case .source(let source) = transfer.staged.bytes else { throw UploadError(.s3UploadFailed, "not in place") }
            var bytes = Data(count: Int(source.size))
            let count = try bytes.withUnsafeMutableBytes { try source.read(into: $0, at: 0) }
            read.update { $0 = bytes.prefix(count) }
            if failing { throw UploadError(.s3UploadFailed, "storage is down") }
            progress(Int64(count), source.size)
        }
    }

    @Test func aFailedPathFileRestoredOnItsNewOwnerOpensThePathAgainOnRetry() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let bytes = Data(SampleBytes.pdf + SampleBytes.filler(50_000))
        try fixture.writeSource("inbox/notes.pdf", Array(bytes))
        var configuration = EngineConfiguration()
        configuration.retry.maxAttempts = 1
        let item = FileItem(fileId: "f1", name: "notes.pdf", mimeType: "application/pdf", source: .path("inbox/notes.pdf"))

        // The first owner: the upload fails for good, and the file keeps its source open.
        let first = BatchRunner(
            batch: UploadBatch(context: Self.context, configuration: configuration), presigner: ScriptedPresigner(),
            uploader: ReadingUploader(failing: true), stager: fixture.stager)
        let firstEvents = EventRecorder()
        first.setGlobalObserver(firstEvents.observer)
        first.upload([item], requestId: "r1")
        await firstEvents.waitForCompletions(1)
        #expect(first.holdsRetainedBytes)
        let snapshot = try #require(BatchSnapshot.encode(first.snapshot, writerGeneration: 1, maxBytes: 1 << 20))
        first.abandon()
        StagingArea.queue.sync(flags: .barrier) {}
        #expect(await eventually { fixture.openDescriptors == 0 }, "the old owner let go of the source")

        // The new owner restores the failed file without bytes; its retry opens the path again.
        let restored = try BatchSnapshot.decode(snapshot, configuration: configuration).batch
        #expect(restored.state(of: "f1") == .failed)
        let uploader = ReadingUploader(failing: false)
        let second = BatchRunner(batch: restored, presigner: ScriptedPresigner(), uploader: uploader, stager: fixture.stager)
        let events = EventRecorder()
        second.setGlobalObserver(events.observer)
        #expect(second.retry(fileId: "f1") == .applied)
        await events.waitForCompletions(1)

        #expect(uploader.read.value == bytes)
        #expect(second.snapshot.attachment(fileId: "f1")?.sha256 == SHA256Hasher.hex(of: bytes))
        #expect(fixture.stagingFiles.isEmpty)
        StagingArea.queue.sync(flags: .barrier) {}
        #expect(await eventually { fixture.openDescriptors == 0 })
    }
}
