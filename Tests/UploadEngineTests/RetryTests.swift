import Foundation
import Testing
@testable import UploadEngine

/// Automatic retries (backoff, Retry-After) and the reference's manual retry paths.
@Suite struct RetryTests {
    private static let storageError = UploadError(.s3UploadFailed, "connection reset")

    @Test func failedFilesAreRetriedAutomaticallyUpToMaxAttempts() {
        var h = BatchHarness()
        h.add([inline("f1")])
        for _ in 1...3 {
            h.stageAll(); h.presignAll()
            h.finishUpload("f1", error: Self.storageError)
            h.advance(.seconds(60))
        }
        let failures = h.failures(of: "f1")
        #expect(failures.map(\.attempt) == [1, 2, 3])
        #expect(failures.map(\.willRetry) == [true, true, false])
        #expect(h.batch.state(of: "f1") == .failed)
        #expect(h.uploadCalls.count == 3)
    }

    @Test func aFileWaitingForItsRetryKeepsTheBatchInProgress() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: Self.storageError)
        #expect(h.batch.status == .inProgress)
        #expect(h.batch.state(of: "f1") == .queued)
        #expect(h.completions.isEmpty, "the drain waits for the automatic retry")
    }

    @Test func backoffIsExponentialWithFullJitterUnderTheCap() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
        #expect((1...7).map { policy.backoffCeiling(afterAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        var random = JitterRandom(seed: 42)
        for attempt in 1...9 {
            for _ in 0..<50 {
                let delay = policy.delay(afterAttempt: attempt, retryAfter: nil, using: &random)
                #expect(delay.map { $0 >= .zero && $0 <= policy.backoffCeiling(afterAttempt: attempt) } == true)
            }
        }
        #expect(policy.delay(afterAttempt: 10, retryAfter: nil, using: &random) == nil)
    }

    @Test func jitterIsSpreadAcrossTheWindow() {
        let policy = RetryPolicy(maxAttempts: 5)
        var random = JitterRandom(seed: 1)
        let delays = (0..<200).compactMap { _ in policy.delay(afterAttempt: 3, retryAfter: nil, using: &random) }
        #expect(delays.contains { $0 < .seconds(1) })
        #expect(delays.contains { $0 > .seconds(3) })
    }

    @Test func theRetryStartsExactlyWhenItsBackoffEnds() throws {
        var h = BatchHarness(seed: 99)
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: Self.storageError)
        let due = try #require(h.batch.nextDeadline)
        let wait = due.timeIntervalSince(h.now)
        #expect(wait > 0.01 && wait <= 1, "seed 99 draws a wait inside the first window")
        h.advance(.milliseconds(Int64(wait * 1000) - 1))
        #expect(h.uploads.isEmpty)
        h.advance(.milliseconds(2))
        #expect(h.uploads.count == 1, "the still-valid URL is reused, so the upload starts at once")
        #expect(h.presignCalls.count == 1)
    }

    /// With the batch's one slot busy, a file whose backoff is over waits as a queued file: its past deadline must not
    /// keep the batch's timer due (the runner would fire it over and over until the slot frees).
    @Test func aRetryWaitingForASlotLeavesNoDeadlineInThePast() throws {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("f1"), inline("f2")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: Self.storageError)
        h.setConcurrency(1)
        h.advance(.seconds(5))
        #expect(h.uploadCalls.count == 2, "f1 waits: f2 holds the batch's one slot")
        let due = try #require(h.batch.nextDeadline, "f2's stall deadline")
        #expect(due > h.now)
        h.finishUpload("f2")
        #expect(h.uploadCalls.count == 3, "f1 goes as soon as the slot is free")
    }

    @Test func retryAfterIsAFloorOnTheBackoff() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "429 SlowDown", retryAfter: .seconds(12)))
        #expect(h.batch.nextDeadline == h.now + .seconds(12))
        h.advance(.seconds(11))
        #expect(h.uploads.isEmpty)
        h.advance(.seconds(1))
        #expect(h.uploads.count == 1)
    }

    @Test func aRetryAfterLongerThanMaxDelayEndsAutomaticRetries() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "503", retryAfter: .seconds(3600)))
        #expect(h.failures(of: "f1").first?.willRetry == false)
        #expect(h.batch.state(of: "f1") == .failed)
    }

    @Test func retryReuploadsAFailedFileFromItsRetainedBytes() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: Self.storageError)
        #expect(h.released.isEmpty, "a failed file keeps its bytes")
        #expect(h.retry("f1") == .applied)
        #expect(h.stages.isEmpty)
        #expect(h.uploads.count == 1)
        #expect(h.uploads[0].transfer.staged.path?.hasPrefix("/staging/") == true)
        h.finishUpload("f1")
        #expect(h.batch.state(of: "f1") == .uploaded)
        #expect(h.failures(of: "f1").map(\.attempt) == [1])
    }

    @Test func aManualRetryGetsAFreshRunOfAutomaticAttempts() {
        var h = BatchHarness { $0.retry.maxAttempts = 2 }
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        h.finishUpload("f1", error: Self.storageError)
        h.advance(.seconds(5))
        h.finishUpload("f1", error: Self.storageError)
        #expect(h.batch.state(of: "f1") == .failed)
        h.retry("f1")
        h.finishUpload("f1", error: Self.storageError)
        #expect(h.failures(of: "f1").map(\.willRetry) == [true, false, true])
    }

    @Test func retryIsANoOpForUnknownIdsAndFilesThatHaveNotFailed() {
        var h = BatchHarness()
        h.add([inline("up"), inline("bad", size: 0), inline("busy")])
        h.stage("up"); h.presignAll(); h.finishUpload("up")
        let before = h.events.count
        #expect(h.retry("nope") == .unknownFile)
        #expect(h.retry("up") == .notApplicable)
        #expect(h.retry("bad") == .notApplicable, "rejected files cannot be retried")
        #expect(h.retry("busy") == .notApplicable)
        #expect(h.events.count == before)
    }

    @Test func reusingAFailedFilesIdUploadsTheNewBytesInItsPlace() {
        var h = BatchHarness { $0.retry.maxAttempts = 1; $0.limits.fileCountMax = 2 }
        h.add([inline("f1", size: 10), inline("f2", size: 10)])
        h.settleAll()
        h.remove("f2")
        h.add([inline("f2", size: 10)], request: "r0")
        h.stageAll(); h.presignAll()
        h.finishUpload("f2", error: Self.storageError)
        #expect(h.batch.remainingCapacity == 0)
        h.add([inline("f2", size: 33)], request: "r2")
        #expect(h.rejection(of: "f2") == nil, "a failed id may be re-used even when the batch is full")
        #expect(h.released.contains { $0.sha256 == "sha-f2" }, "the old bytes are given back")
        h.stageAll(); h.presignAll(); h.finishUpload("f2")
        #expect(h.batch.attachment(fileId: "f2")?.size == 33)
        #expect(h.events.last { $0.fileId == "f2" }?.requestId == "r2", "the new call's listener hears about the file")
    }
}
