import Foundation
import Testing
@testable import UploadEngine

/// A batch held for a handover: what is in flight finishes, nothing new starts, and the snapshot the next owner
/// restores still has the rest queued.
@Suite struct HandoverHoldTests {
    @Test func anUploadSendingGoesOnWhileOneNotStartedAndTheQueuedOnesWaitForTheNextOwner() throws {
        var harness = BatchHarness(concurrency: 3)
        harness.add(["a", "b", "c", "d"].map { inline($0) })
        harness.stage("a")
        harness.stage("b")
        harness.advance(.milliseconds(60))  // past the gather window: c is still staging
        harness.presignAll()
        harness.progress("a", sent: 10)
        #expect(harness.batch.state(of: "b") == .uploading, "handed to the uploader, not sending yet (waiting for a slot)")
        harness.absorb(harness.batch.holdForHandover())
        #expect(harness.cancelled.count == 1, "the upload that sent nothing is called off")
        #expect(harness.batch.state(of: "b") == .queued)
        #expect(!harness.batch.isQuietForHandover, "a is sending")
        harness.finishUpload("a")
        #expect(harness.batch.isQuietForHandover, "c only stages: the next owner stages it again, nothing is uploaded twice")
        harness.finishUpload("b")  // the called-off attempt's late outcome changes nothing
        harness.stage("c")
        harness.presignAll()
        #expect(harness.batch.state(of: "a") == .uploaded)
        #expect(harness.batch.state(of: "b") == .queued && harness.batch.state(of: "c") == .queued, "c staged, but not uploaded")
        #expect(harness.batch.state(of: "d") == .queued, "no slot is refilled")
        #expect(harness.uploadCalls == ["https://cdn.test/a", "https://cdn.test/b"])
        #expect(harness.batch.isQuietForHandover && harness.batch.hasWorkToResume)
        let snapshot = try #require(BatchSnapshot.encode(harness.batch, writerGeneration: 1, maxBytes: 1 << 20))
        var restored = try BatchSnapshot.decode(snapshot, configuration: harness.batch.configuration).batch
        #expect(!restored.isHeld, "holding is not durable: the next owner starts the rest")
        let resumed = restored.resume(now: harness.now)
        #expect(resumed.actions.filter { if case .stage = $0 { true } else { false } }.count == 3)
    }

    @Test func aHeldBatchStartsNoRetryAndHasNoDeadlineForOne() {
        var harness = BatchHarness(configure: { $0.retry.maxAttempts = 3 })
        harness.add([inline("a")])
        harness.stageAll()
        harness.presignAll()
        harness.finishUpload("a", error: UploadError(.s3UploadFailed, "HTTP 503", retryable: true))
        #expect(harness.batch.state(of: "a") == .queued)
        harness.absorb(harness.batch.holdForHandover())
        #expect(harness.batch.nextDeadline == nil, "a timer for a retry that cannot start would fire for nothing")
        harness.advance(.seconds(60))
        #expect(harness.stages.isEmpty && harness.uploads.isEmpty && harness.presigns.isEmpty)
        #expect(harness.batch.isQuietForHandover)
    }

    @Test func aHeldBatchPostsNoMessageButAPostUnderWayCountsAsInFlight() {
        var sending = BatchHarness()
        sending.add([inline("a")])
        sending.settleAll()
        #expect(sending.posts.count == 1, "auto send after the drain")
        sending.absorb(sending.batch.holdForHandover())
        #expect(!sending.batch.isQuietForHandover, "the post waits for its answer")
        sending.answerPost()
        #expect(sending.batch.isQuietForHandover && sending.postedFileIds == [["a"]])

        var due = BatchHarness()
        due.absorb(due.batch.holdForHandover())
        due.add([inline("a")])
        #expect(due.stages.isEmpty, "nothing starts once held")
        #expect(due.batch.isQuietForHandover)
    }
}
