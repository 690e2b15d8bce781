import Foundation
import Testing
@testable import UploadEngine

/// The reference's "Remove, retry & clear" section (retry has its own suite).
@Suite struct RemoveClearTests {
    @Test func removingAnUploadingFileAbortsItSilently() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        let token = h.uploads[0].token
        #expect(h.remove("f1") == .applied)
        #expect(h.cancelled == [token])
        #expect(h.failures(of: "f1").isEmpty)
        #expect(h.rejection(of: "f1") == nil)
        #expect(h.kinds(of: "f1").last == .removed)
        #expect(h.released.map(\.sha256) == ["sha-f1"])
        #expect(h.batch.count == 0)
    }

    @Test func removingAStagingFileCancelsTheStage() {
        var h = BatchHarness()
        h.add([remote("f1")])
        let token = h.stages[0].token
        h.remove("f1")
        #expect(h.cancelled == [token])
    }

    @Test func removingAnUploadedFileDropsItAndDeletesItsObject() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.settleAll()
        h.remove("a")
        #expect(h.batch.attachments.map(\.fileId) == ["b"])
        #expect(h.batch.attachment(fileId: "a") == nil)
        #expect(h.deleted.map(\.fileId) == ["a"])
    }

    @Test func removingAFileThatWasAlreadySentKeepsItsObject() {
        var h = BatchHarness()
        h.add([inline("a")])
        h.settleAll()
        h.answerPost()  // the drain's message, carrying "a", went out
        h.remove("a")
        #expect(h.deleted.isEmpty, "a sent message still points at the object")
    }

    @Test func removingTheLastInFlightFileCompletesTheBatch() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.stageAll(); h.presignAll(); h.finishUpload("a")
        #expect(h.completions.isEmpty)
        h.remove("b")
        #expect(h.completions.count == 1)
        #expect(h.completions[0].successful.map(\.fileId) == ["a"])
    }

    @Test func removingAnUnknownFileIsANoOp() {
        var h = BatchHarness()
        #expect(h.remove("ghost") == .unknownFile)
        #expect(h.events.isEmpty)
    }

    @Test func removingAQueuedFileLetsTheNextOneStart() {
        var h = BatchHarness(concurrency: 1)
        h.add([inline("a"), inline("b"), inline("c")])
        h.remove("b")
        h.stageAll(); h.presignAll(); h.finishUpload("a")
        #expect(h.stages.map(\.item.fileId) == ["c"])
    }

    @Test func clearAbortsEverythingAndDropsTheBatch() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("up"), inline("flying"), inline("waiting")])
        h.stage("up"); h.stage("flying"); h.presignAll(); h.finishUpload("up")
        let flying = h.uploads[0].token
        h.clear()
        #expect(h.cancelled.contains(flying))
        #expect(h.batch.count == 0)
        #expect(h.batch.status == .idle)
        #expect(h.batch.attachments.isEmpty)
        #expect(h.events.filter { $0.kind == .removed }.map(\.fileId) == ["up", "flying", "waiting"])
        #expect(!h.events.contains { if case .failed = $0.kind { true } else { false } })
        #expect(h.completions.last == UploadResult(batchId: "b1"))
        #expect(h.deleted.isEmpty, "clear leaves stored objects alone")
    }

    @Test func outcomesOfClearedAttemptsAreIgnored() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        let pending = h.uploads[0]
        h.clear()
        let before = h.events.count
        h.absorb(h.batch.uploaded(pending.token, .success(()), now: h.now))
        h.absorb(h.batch.progress(pending.token, sent: 50, now: h.now))
        #expect(h.events.count == before)
    }
}
