import Foundation
import Testing
@testable import UploadEngine

/// The reference's intake rows of the error table and its "Limits" section.
@Suite struct IntakeValidationTests {
    @Test func emptyInlineDataIsRejectedWithFileDataEmpty() {
        var h = BatchHarness()
        h.add([inline("f1", size: 0)])
        #expect(h.rejection(of: "f1")?.code == .fileDataEmpty)
        #expect(h.rejection(of: "f1")?.isRetryable == false)
        #expect(h.stages.isEmpty)
    }

    @Test func aSourceThatStagesNoBytesIsRejectedWithFileDataEmpty() {
        var h = BatchHarness()
        h.add([remote("f1")])
        h.stage("f1", size: 0)
        #expect(h.rejection(of: "f1")?.code == .fileDataEmpty)
        #expect(h.presigns.isEmpty)
    }

    @Test func aMalformedSourceIsRejectedAsAnInvalidFileObject() {
        var h = BatchHarness()
        h.add([FileItem(fileId: "f1", name: "a.bin", source: .malformed("source.data is not valid base64"))])
        #expect(h.rejection(of: "f1") == UploadError(.invalidFileObject, "source.data is not valid base64", retryable: false))
    }

    @Test func aNegativeDeclaredSizeIsRejectedAsAnInvalidFileObject() {
        var h = BatchHarness()
        h.add([FileItem(fileId: "f1", name: "a.bin", declaredSize: -1, source: .data(Data(count: 5)))])
        #expect(h.rejection(of: "f1") == UploadError(.invalidFileObject, "size must not be negative", retryable: false))
    }

    @Test(arguments: [FileState.queued, .staging, .presigning, .uploading, .uploaded])
    func reusingTheIdOfALiveFileIsRejectedAsAnInvalidFileObject(state: FileState) {
        var h = BatchHarness(concurrency: 1)
        h.add([inline("busy"), inline("f1")])
        // Drive f1 into the wanted state (busy holds the single slot until f1 needs it).
        if state != .queued {
            h.stageAll(); h.presignAll(); h.finishUpload("busy")
            if state != .staging { h.stage("f1") }
            if state != .staging && state != .presigning { h.presignAll() }
            if state == .uploaded { h.finishUpload("f1") }
        }
        #expect(h.batch.state(of: "f1") == state)
        h.add([inline("f1", size: 5)], request: "r2")
        #expect(h.rejection(of: "f1")?.code == .invalidFileObject)
        #expect(h.batch.state(of: "f1") == state, "the live file is untouched")
    }

    @Test func aDuplicateIdWithinOneCallRejectsTheSecondFile() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("f1", size: 10), inline("f1", size: 20)])
        #expect(h.batch.count == 2)
        #expect(h.stages.count == 1)
        #expect(h.rejection(of: "f1")?.code == .invalidFileObject)
    }

    @Test func aFileLargerThanTheSizeLimitIsRejected() {
        var h = BatchHarness { $0.limits.fileSizeMax = 1000 }
        h.add([inline("inline", size: 1001), remote("declared", size: 1001), remote("staged")])
        h.stage("staged", size: 1001)
        #expect(h.rejection(of: "inline")?.code == .fileSizeExceeded)
        #expect(h.rejection(of: "declared")?.code == .fileSizeExceeded)
        #expect(h.rejection(of: "staged")?.code == .fileSizeExceeded)
    }

    @Test func inlineDataLargerThanInlineMaxIsRejectedWithSizeExceeded() {
        var h = BatchHarness { $0.limits.inlineMax = 64 }
        h.add([inline("f1", size: 65), FileItem(fileId: "f2", name: "b.bin", source: .oversizedData(byteCount: 2_000_000))])
        #expect(h.rejection(of: "f1")?.code == .fileSizeExceeded)
        #expect(h.rejection(of: "f2")?.code == .fileSizeExceeded)
    }

    @Test func validationRunsInTheContractsOrder() {
        var h = BatchHarness { $0.limits.fileSizeMax = 10; $0.limits.fileCountMax = 1 }
        // Empty beats a malformed item (a bad id, as the decoder marks it); a malformed item beats size; size beats count.
        h.add([inline("full", size: 5),
               FileItem(fileId: "", name: "a", declaredSize: 0, source: .malformed("fileId must not be blank")),
               FileItem(fileId: "", name: "a", declaredSize: 50, source: .malformed("fileId must not be blank")),
               inline("big", size: 50),
               inline("over", size: 5)])
        let codes = h.events.compactMap { if case .rejected(let e) = $0.kind { e.code } else { nil } }
        #expect(codes == [.fileDataEmpty, .invalidFileObject, .fileSizeExceeded, .fileCountExceeded])
    }

    @Test func filesBeyondTheRemainingCapacityAreRejectedInInputOrder() {
        var h = BatchHarness { $0.limits.fileCountMax = 3 }
        h.add([inline("a"), inline("b")])
        h.add([inline("c"), inline("d"), inline("e")], request: "r2")
        #expect(h.rejection(of: "c") == nil)
        #expect(h.rejection(of: "d")?.code == .fileCountExceeded)
        #expect(h.rejection(of: "e")?.code == .fileCountExceeded)
    }

    @Test func anOversizedOrOverCountFileRejectsOnlyThatFile() {
        var h = BatchHarness(configure: { $0.limits.fileSizeMax = 100; $0.limits.fileCountMax = 2 }, concurrency: 3)
        h.add([inline("ok1"), inline("huge", size: 101), inline("ok2"), inline("extra")])
        h.settleAll()
        #expect(h.batch.attachments.map(\.fileId) == ["ok1", "ok2"])
        #expect(h.completions.last?.rejected.map(\.fileId) == ["huge", "extra"])
    }

    @Test(arguments: [FileState.queued, .failed, .uploaded])
    func removingAFileFreesCapacity(state: FileState) {
        var h = BatchHarness(configure: { $0.limits.fileCountMax = 2; $0.retry.maxAttempts = 1 }, concurrency: 1)
        h.add([inline("busy"), inline("f1")])
        if state != .queued {
            h.stageAll(); h.presignAll(); h.finishUpload("busy")
            h.stageAll(); h.presignAll()
            h.finishUpload("f1", error: state == .failed ? UploadError(.s3UploadFailed, "boom") : nil)
        }
        #expect(h.batch.state(of: "f1") == state)
        h.add([inline("late")], request: "r2")
        #expect(h.rejection(of: "late")?.code == .fileCountExceeded)
        h.remove("f1")
        h.add([inline("late")], request: "r3")
        #expect(h.batch.state(of: "late")?.isPending == true)
    }

    @Test func rejectedFilesOccupyNoCapacityButAreCounted() {
        var h = BatchHarness { $0.limits.fileCountMax = 1 }
        h.add([inline("bad", size: 0), inline("good")])
        #expect(h.batch.count == 2)
        #expect(h.batch.remainingCapacity == 0)
        #expect(h.rejection(of: "good") == nil)
    }

    @Test func aNewFileUnderARejectedFilesIdReplacesIt() {
        var h = BatchHarness()
        h.add([inline("f1", size: 0)])
        h.add([inline("f1", size: 10)], request: "r2")
        #expect(h.batch.count == 1)
        #expect(h.batch.state(of: "f1") == .staging)
    }
}
