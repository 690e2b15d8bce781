import Foundation
import Testing
@testable import UploadEngine

/// Presigning: one call per ready cohort, batch presign isolation, refusals vs transport failures.
@Suite struct PresignTests {
    @Test func filesOfAJobStartedTogetherArePresignedInOneCall() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("c")])
        h.stage("a")
        h.stage("b")
        #expect(h.presigns.isEmpty, "the call waits for the cohort's last stage")
        h.stage("c")
        #expect(h.presignCalls == [["a", "b", "c"]])
    }

    @Test func aCohortMemberThatFailsStagingDoesNotHoldBackTheOthers() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 2)
        h.add([inline("a"), remote("b")])
        h.stage("a")
        h.stage("b", error: UploadError(.sourceUnresolvable, "404"))
        #expect(h.presignCalls == [["a"]])
    }

    @Test func aWholeCallFailureIsRepeatedFileByFile() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("c")])
        h.stageAll()
        h.answerPresign { _ in .failure(UploadError(.presignedURLFailed, "HTTP 500")) }
        #expect(h.presignCalls == [["a", "b", "c"], ["a"], ["b"], ["c"]])
        #expect(h.failures(of: "a").isEmpty, "isolation is not a failure")
    }

    @Test func isolationKeepsOneBadFileFromSinkingTheBatch() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 3)
        h.add([inline("a"), inline("bad"), inline("c")])
        h.stageAll()
        h.answerPresign { _ in .failure(UploadError(.presignedURLFailed, "HTTP 500")) }
        for _ in 0..<3 {
            h.answerPresign { files in
                files[0].fileId == "bad"
                    ? .failure(UploadError(.presignedURLFailed, "connection reset"))
                    : .success([files[0].fileId: .target(BatchHarness.target(files[0].fileId, expiresAt: nil))])
            }
        }
        while let next = h.uploads.first { h.finishUpload(String(next.transfer.staged.sha256.dropFirst(4))) }
        #expect(h.batch.attachments.map(\.fileId) == ["a", "c"])
        let failure = h.failures(of: "bad").first
        #expect(failure?.error.code == .presignedURLFailed)
        #expect(failure?.error.isRetryable == true)
    }

    @Test func aPolicyRefusalRejectsTheFileWithTheServersCode() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.stageAll()
        h.answerPresign { _ in
            .success(["a": .target(BatchHarness.target("a", expiresAt: nil)),
                      "b": .refused(UploadError("ERR_PLAN_LIMIT", "plan does not allow video", retryable: true))])
        }
        let rejection = h.rejection(of: "b")
        #expect(rejection?.code == UploadErrorCode("ERR_PLAN_LIMIT"))
        #expect(rejection?.message == "plan does not allow video")
        #expect(rejection?.isRetryable == false, "a refusal is final whatever the service says")
        #expect(h.failures(of: "b").isEmpty)
    }

    @Test func aRefusalWithoutACodeFallsBackToPresignedURLFailed() {
        var h = BatchHarness()
        h.add([inline("a")])
        h.stageAll()
        h.answerPresign { _ in .success(["a": .refused(UploadError(UploadErrorCode(""), "denied"))]) }
        #expect(h.rejection(of: "a")?.code == .presignedURLFailed)
    }

    @Test func aOneFileCallThatFailsInTransportFailsTheFileRetryably() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("a")])
        h.stageAll()
        h.answerPresign { _ in .failure(UploadError(.presignedURLFailed, "timeout")) }
        #expect(h.presignCalls == [["a"]])
        #expect(h.failures(of: "a").map(\.error.code) == [.presignedURLFailed])
        #expect(h.batch.state(of: "a") == .failed)
    }

    @Test func aFileMissingFromTheAnswerIsPresignedOnItsOwn() {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.stageAll()
        h.answerPresign { _ in .success(["a": .target(BatchHarness.target("a", expiresAt: nil))]) }
        #expect(h.presignCalls == [["a", "b"], ["b"]])
    }

    @Test func thePresignCallCarriesTheStagedSizeDigestAndResolvedType() {
        var h = BatchHarness()
        h.add([remote("a", mime: nil)])
        h.stage("a", size: 4242, mimeType: "application/pdf")
        let file = h.presigns.first?.first?.file
        #expect(file == PresignFile(fileId: "a", name: "a.pdf", mimeType: "application/pdf", size: 4242, sha256: "sha-a"))
    }
}

/// The gather window: ready files wait a moment for the rest of their cohort, not for the longest copy.
@Suite struct PresignGatherTests {
    @Test func readyFilesStopWaitingForTheirCohortAfterTheGatherWindow() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("big")])
        h.stage("a")
        h.stage("b")
        h.advance(.milliseconds(49))
        #expect(h.presigns.isEmpty, "still inside the window")
        h.advance(.milliseconds(1))
        #expect(h.presignCalls == [["a", "b"]])
        h.stage("big")
        #expect(h.presignCalls == [["a", "b"], ["big"]])
    }

    @Test func theWindowRunsFromTheFirstReadyFile() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("big")])
        h.stage("a")
        #expect(h.batch.nextDeadline == h.now + .milliseconds(50))
        h.advance(.milliseconds(30))
        h.stage("b")
        #expect(h.batch.nextDeadline == h.now + .milliseconds(20), "b joins a's window rather than opening its own")
        h.advance(.milliseconds(20))
        #expect(h.presignCalls == [["a", "b"]])
    }

    @Test func theWindowIsConfigurable() {
        var h = BatchHarness(configure: { $0.presignGatherWindow = .seconds(2) }, concurrency: 2)
        h.add([inline("a"), inline("big")])
        h.stage("a")
        h.advance(.seconds(1))
        #expect(h.presigns.isEmpty)
        h.advance(.seconds(1))
        #expect(h.presignCalls == [["a"]])
    }
}
