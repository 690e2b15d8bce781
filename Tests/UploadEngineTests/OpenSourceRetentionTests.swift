import Foundation
import Testing
@testable import UploadEngine

/// Sources read in place (`path` sources, never copied): what a failed file keeps of them, what a source that
/// changed under its upload gives back, and where the digest an upload computed goes.
@Suite struct OpenSourceRetentionTests {
    private static let storageError = UploadError(.s3UploadFailed, "connection reset")
    private static let changed = UploadError(.sourceFetchFailed, "source.path changed while it was uploaded", retryable: true)

    private static func pathFile(_ fileId: String) -> FileItem {
        FileItem(fileId: fileId, name: "\(fileId).jpg", mimeType: "image/jpeg", source: .path("inbox/\(fileId).jpg"))
    }

    /// A batch whose file `f1` was staged in place and is uploading.
    private static func uploading(maxAttempts: Int = 1) -> BatchHarness {
        var h = BatchHarness { $0.retry.maxAttempts = maxAttempts }
        h.add([pathFile("f1")])
        h.stage("f1", size: 2048, inPlace: true)
        h.presignAll()
        return h
    }

    @Test func aFailedFileAsksToKeepTheSourceItReadsInPlace() throws {
        var h = Self.uploading()
        let staged = try #require(h.uploads.first?.transfer.staged)

        h.finishUpload("f1", error: Self.storageError)

        #expect(h.batch.state(of: "f1") == .failed)
        #expect(h.kept.map(\.staged) == [staged])
        #expect(h.released.isEmpty, "kept until the stager refuses or the retry window ends")
        #expect(h.batch.retainedFiles == [staged])
    }

    @Test func aFileWaitingForItsAutomaticRetryAsksToKeepItsSourceToo() throws {
        var h = Self.uploading(maxAttempts: 2)

        h.finishUpload("f1", error: Self.storageError)

        #expect(h.batch.state(of: "f1") == .queued)
        #expect(h.kept.count == 1)
    }

    @Test func aStagingCopyIsKeptWithoutAsking() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()

        h.finishUpload("f1", error: Self.storageError)

        #expect(h.batch.state(of: "f1") == .failed)
        #expect(h.kept.isEmpty)
        #expect(h.batch.retainedFiles.count == 1)
    }

    @Test func aRefusedKeepGivesTheSourceBackAndTheRetryOpensItAgain() throws {
        var h = Self.uploading()
        let staged = try #require(h.uploads.first?.transfer.staged)
        h.finishUpload("f1", error: Self.storageError)
        let token = try #require(h.kept.first?.token)

        h.absorb(h.batch.keepRefused(token))

        #expect(h.released == [staged])
        #expect(h.batch.retainedFiles.isEmpty)
        #expect(h.batch.state(of: "f1") == .failed, "a refusal changes nothing else")
        #expect(h.retry("f1") == .applied)
        #expect(h.stages.map(\.item.fileId) == ["f1"], "the retry stages the source again")
    }

    @Test func aKeepRefusedAfterTheFileStartedAgainLeavesWhatItReads() throws {
        var h = Self.uploading()
        h.finishUpload("f1", error: Self.storageError)
        let token = try #require(h.kept.first?.token)
        #expect(h.retry("f1") == .applied)

        h.absorb(h.batch.keepRefused(token))

        #expect(h.released.isEmpty)
        #expect(h.uploads.count == 1, "the retry goes on with its bytes")
    }

    @Test func aSourceThatChangedUnderItsUploadIsGivenBackAndTheRetryOpensItAgain() throws {
        var h = Self.uploading(maxAttempts: 2)
        let staged = try #require(h.uploads.first?.transfer.staged)

        h.finishUpload("f1", error: Self.changed)

        #expect(h.failures(of: "f1").map(\.error.code) == [.sourceFetchFailed])
        #expect(h.failures(of: "f1").map(\.willRetry) == [true])
        #expect(h.released == [staged])
        #expect(h.kept.isEmpty)
        h.advance(.seconds(60))
        #expect(h.stages.map(\.item.fileId) == ["f1"], "not presigned or uploaded from the old bytes")
        #expect(h.presigns.isEmpty && h.uploads.isEmpty)
    }

    @Test func theDigestTheUploadComputedIsTheAttachments() throws {
        var h = Self.uploading()

        h.finishUpload("f1", sha256: "digest-of-f1")

        #expect(h.batch.state(of: "f1") == .uploaded)
        #expect(h.batch.attachment(fileId: "f1")?.sha256 == "digest-of-f1")
        #expect(h.released.count == 1, "an uploaded file gives its source back")
    }
}
