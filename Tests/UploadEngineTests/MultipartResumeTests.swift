import Foundation
import Testing
import TestSupport
@testable import UploadEngine

/// A file's multipart upload as durable state (DESIGN §12): recorded as storage reports it, handed to the file's
/// next attempt here or on the batch's next owner, and aborted — only — when the file is given up, removed or
/// cleared.
@Suite struct MultipartResumeTests {
    static func upload(_ fileId: String, parts: Int) -> MultipartUpload {
        MultipartUpload(key: "uploads/b1/\(fileId)/movie.mp4", uploadId: "up-\(fileId)", partSize: 8 << 20, sha256: "sha-\(fileId)",
                        parts: (1...max(1, parts)).prefix(parts).map { MultipartUpload.Part(number: $0, etag: "\"e\($0)\"", sha256: "") })
    }

    /// A harness with `f1` uploading, its storage having reported `parts` stored parts.
    static func uploading(parts: Int, attempts: Int = 3) -> BatchHarness {
        var h = BatchHarness { $0.retry.maxAttempts = attempts }
        h.add([inline("f1")])
        h.stageAll()
        h.presignAll()
        h.absorb(h.batch.multipartStored(h.uploads[0].token, upload("f1", parts: parts), now: h.now))
        return h
    }

    /// The batch's next owner: `h`'s batch through its snapshot, resumed.
    static func nextOwner(of h: BatchHarness) throws -> BatchHarness {
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        var next = BatchHarness()
        next.batch = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        next.absorb(next.batch.resume(now: next.now))
        return next
    }

    @Test func storedPartsAreDurableAndTheNextAttemptResumesThem() throws {
        var h = Self.uploading(parts: 0)
        let created = h.batch.stateVersion
        h.absorb(h.batch.multipartStored(h.uploads[0].token, Self.upload("f1", parts: 2), now: h.now))
        #expect(h.batch.stateVersion > created, "each report is a change of durable state")
        let version = h.batch.stateVersion
        h.absorb(h.batch.multipartStored(h.uploads[0].token, Self.upload("f1", parts: 2), now: h.now))
        #expect(h.batch.stateVersion == version, "the same report again changes nothing")

        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "connection reset", retryable: true))
        #expect(h.aborted.isEmpty, "a failure with attempts left keeps the upload")
        h.advance(.seconds(60))
        h.presignAll()
        #expect(h.uploads.last?.transfer.multipart == Self.upload("f1", parts: 2))

        // The next owner: the snapshot carries the upload and its parts, and the restored file's attempt resumes it.
        var next = try Self.nextOwner(of: h)
        next.stageAll()
        next.presignAll()
        #expect(next.uploads.first?.transfer.multipart == Self.upload("f1", parts: 2))
    }

    /// The next owner stages the file with the upload it will resume, source version and all, so that staging can
    /// take the recorded digest for a source of that version instead of reading the whole file again (§12).
    @Test func aRestoredFileIsStagedWithTheUploadItWillResume() async throws {
        var h = Self.uploading(parts: 0)
        var recorded = Self.upload("f1", parts: 2)
        recorded.sourceVersion = "1024@1700000000.000000001"
        h.absorb(h.batch.multipartStored(h.uploads[0].token, recorded, now: h.now))
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""sourceVersion":"1024@1700000000.000000001""#))
        #expect(try Self.nextOwner(of: h).stagedResuming == ["f1": recorded], "the stage action carries the upload")

        // And the runner hands it to the stager.
        let stager = ScriptedStager()
        let recorder = EventRecorder()
        let restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        let runner = BatchRunner(batch: restored, presigner: ScriptedPresigner(), uploader: ScriptedUploader(),
                                 stager: stager, clock: ManualClock())
        runner.setGlobalObserver(recorder.observer)
        runner.resume()
        await recorder.waitForCompletions(1)
        #expect(stager.resumedUploads == ["f1": recorded])
    }

    /// A version read back from a snapshot is compared, never trusted: one longer than any staging tells is dropped,
    /// and the source is then hashed as for an upload that recorded none.
    @Test func aSourceVersionTooLongToBeOneIsNotKept() throws {
        var h = Self.uploading(parts: 0)
        var recorded = Self.upload("f1", parts: 1)
        recorded.sourceVersion = String(repeating: "9", count: MultipartUpload.maxSourceVersionBytes + 1)
        h.absorb(h.batch.multipartStored(h.uploads[0].token, recorded, now: h.now))
        var next = try Self.nextOwner(of: h)
        next.stageAll()
        next.presignAll()
        recorded.sourceVersion = nil
        #expect(next.uploads.first?.transfer.multipart == recorded)
    }

    @Test func aCompletedUploadLeavesNothingToResumeOrAbort() throws {
        var h = Self.uploading(parts: 3)
        h.finishUpload("f1")
        #expect(h.batch.state(of: "f1") == .uploaded)
        #expect(h.aborted.isEmpty)
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("uploadId"))
    }

    @Test func aFileGivenUpAbortsItsUpload() {
        var failed = Self.uploading(parts: 2, attempts: 1)
        failed.finishUpload("f1", error: UploadError(.s3UploadFailed, "HTTP 503", retryable: true))
        #expect(failed.batch.state(of: "f1") == .failed)
        #expect(failed.aborted == [Self.upload("f1", parts: 2)])

        var rejected = Self.uploading(parts: 2)
        rejected.finishUpload("f1", error: UploadError(.s3UploadFailed, "403 AccessDenied", retryable: false))
        #expect(rejected.batch.state(of: "f1") == .rejected)
        #expect(rejected.aborted == [Self.upload("f1", parts: 2)])
    }

    @Test func removingOrClearingAFileMidUploadAbortsItsUpload() {
        var removed = Self.uploading(parts: 1)
        removed.remove("f1")
        #expect(removed.aborted == [Self.upload("f1", parts: 1)])
        #expect(removed.cancelled.count == 1)

        var cleared = Self.uploading(parts: 1)
        cleared.clear()
        #expect(cleared.aborted == [Self.upload("f1", parts: 1)])
    }

    @Test func aReportOfASupersededAttemptIsDropped() {
        var h = Self.uploading(parts: 1)
        let stale = h.uploads[0].token
        h.finishUpload("f1", error: UploadError(.uploadStalled, "stalled", retryable: true))
        let version = h.batch.stateVersion
        h.absorb(h.batch.multipartStored(stale, Self.upload("f1", parts: 5), now: h.now))
        #expect(h.batch.stateVersion == version)
        h.advance(.seconds(60))
        h.presignAll()
        #expect(h.uploads.last?.transfer.multipart?.parts.count == 1)
    }

    @Test func aSnapshotTooLargeForEveryPartStillKeepsTheUploadToResume() throws {
        var h = Self.uploading(parts: 0)
        var huge = Self.upload("f1", parts: 0)
        huge.parts = (1...10_000).map { MultipartUpload.Part(number: $0, etag: "\"\(String(repeating: "e", count: 32))\"",
                                                              sha256: String(repeating: "a", count: 64)) }
        h.absorb(h.batch.multipartStored(h.uploads[0].token, huge, now: h.now))
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        let restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        let entry = try #require(restored.entries.first)
        #expect(entry.multipart?.uploadId == "up-f1")
        #expect(entry.multipart?.parts.isEmpty == true, "its parts are sent again into the same upload")
    }
}
