import Foundation
import Testing
@testable import UploadEngine

/// The reference's "UploadResult" section and its batch getters.
@Suite struct UploadResultTests {
    @Test func completedFiresAtTheTransitionToIdleWithTheWholeBatch() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 3)
        h.add([inline("ok"), inline("bad", size: 0), inline("flaky"), inline("ok2")])
        h.stageAll(); h.presignAll()
        h.finishUpload("ok")
        h.finishUpload("flaky", error: UploadError(.s3UploadFailed, "reset"))
        #expect(h.completions.isEmpty)
        h.finishUpload("ok2")
        #expect(h.completions.count == 1)
        let result = h.completions[0]
        #expect(result.batchId == "b1")
        #expect(result.successful.map(\.fileId) == ["ok", "ok2"])
        #expect(result.successful[0].attachment.url == "https://cdn.test/ok")
        #expect(result.rejected.map(\.fileId) == ["bad"])
        #expect(result.rejected[0].error == WireError(UploadError(.fileDataEmpty, "the file has no data", retryable: false)))
        #expect(result.failed.map(\.fileId) == ["flaky"])
        #expect(result.failed[0].error.retryable)
        #expect(h.events.last?.isCompletion == true)
    }

    @Test func completedRefiresWhenMoreFilesJoinAndTheBatchDrainsAgain() {
        var h = BatchHarness()
        h.add([inline("a")])
        h.settleAll()
        h.add([inline("b")], request: "r2")
        #expect(h.completions.count == 1, "no completion while b is in flight")
        h.settleAll()
        #expect(h.completions.count == 2)
        #expect(h.completions[1].successful.map(\.fileId) == ["a", "b"])
        #expect(h.events.last?.requestId == "r2")
    }

    @Test func aCallWhoseFilesAreAllRejectedCompletesAtOnce() {
        var h = BatchHarness()
        h.add([inline("x", size: 0), FileItem(fileId: "y", name: "y.bin", source: .malformed("source is required"))])
        #expect(h.completions.count == 1)
        #expect(h.completions[0].rejected.count == 2)
    }

    @Test func aControlOnAnIdleBatchDoesNotReportCompletion() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.settleAll()
        h.remove("a")
        h.setConcurrency(4)
        #expect(h.completions.count == 1)
    }

    @Test func statusIsInProgressWhileAnyFileIsPendingAndIdleOtherwise() {
        var h = BatchHarness()
        #expect(h.batch.status == .idle, "an empty batch is idle")
        h.add([inline("a")])
        #expect(h.batch.status == .inProgress)
        h.settleAll()
        #expect(h.batch.status == .idle)
    }

    @Test func gettersReturnOnlyUploadedAttachmentsInInputOrder() {
        var h = BatchHarness(concurrency: 4)
        h.add([inline("img", mime: "image/png"), inline("doc", mime: "application/pdf", name: "Doc.PDF"),
               inline("pending", mime: "video/mp4"), inline("vid", mime: "video/mp4", name: "v.mp4")])
        h.stageAll(); h.presignAll()
        h.finishUpload("vid"); h.finishUpload("doc"); h.finishUpload("img")
        #expect(h.batch.attachments.map(\.fileId) == ["img", "doc", "vid"])
        #expect(h.batch.attachments(ofType: .video).map(\.fileId) == ["vid"])
        #expect(h.batch.attachments(ofType: .audio) == [])
        #expect(h.batch.attachment(fileId: "pending") == nil, "not yet uploaded")
        #expect(h.batch.attachment(fileId: "nope") == nil)
        #expect(h.batch.count == 4)
        let doc = h.batch.attachment(fileId: "doc")
        #expect(doc == UploadEngine.Attachment(fileId: "doc", name: "Doc.PDF", url: "https://cdn.test/doc", mimeType: "application/pdf", size: 100, sha256: "sha-doc"))
        #expect(doc?.extension == "pdf")
        #expect(doc?.type == .file)
    }

    @Test func countReportsFilesInEveryState() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 2)
        h.add([inline("up"), inline("rej", size: 0), inline("fail"), inline("queued")])
        h.stageAll(); h.presignAll()
        h.finishUpload("up"); h.finishUpload("fail", error: UploadError(.s3UploadFailed, "x"))
        #expect(h.batch.count == 4)
        #expect(h.batch.attachments.count == 1)
    }

    @Test func theMimeTypeFallsBackToTheExtension() {
        var h = BatchHarness()
        h.add([inline("a", mime: nil, name: "clip.MOV")])
        h.settleAll()
        #expect(h.batch.attachment(fileId: "a")?.mimeType == "video/quicktime")
        #expect(h.batch.attachment(fileId: "a")?.type == .video)
    }

    @Test func theSniffedTypeWinsOverTheDeclaredOne() {
        var h = BatchHarness()
        h.add([remote("a", mime: nil)])
        h.stage("a", mimeType: "image/webp")
        h.presignAll(); h.finishUpload("a")
        #expect(h.batch.attachment(fileId: "a")?.type == .image)
    }
}
