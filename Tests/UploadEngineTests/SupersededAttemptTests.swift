import Foundation
import Testing
@testable import UploadEngine

/// Every attempt carries a generation: outcomes of superseded attempts never touch the newer state.
@Suite struct SupersededAttemptTests {
    @Test func aLateSuccessOfAStalledAttemptIsIgnored() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        let stalled = h.uploads[0].token
        h.advance(.seconds(30))
        let before = h.events.count
        h.absorb(h.batch.uploaded(stalled, .success(()), now: h.now))
        #expect(h.events.count == before)
        #expect(h.batch.state(of: "f1") == .failed)
    }

    @Test func aLateFailureOfARemovedFileIsIgnored() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll(); h.presignAll()
        let token = h.uploads[0].token
        h.remove("f1")
        h.add([inline("f1")], request: "r2")
        h.absorb(h.batch.uploaded(token, .failure(UploadError(.s3UploadFailed, "aborted")), now: h.now))
        #expect(h.failures(of: "f1").isEmpty)
        #expect(h.batch.state(of: "f1") == .staging)
    }

    @Test func bytesStagedForASupersededAttemptAreGivenBack() {
        var h = BatchHarness()
        h.add([remote("f1")])
        let token = h.stages[0].token
        h.remove("f1")
        let late = StagedFile(path: "/staging/late", size: 10, sha256: "x")
        h.absorb(h.batch.staged(token, .success(late), now: h.now))
        #expect(h.released.contains(late))
    }

    @Test func aPresignAnswerForARetriedAttemptIsIgnored() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 })
        h.add([inline("f1")])
        h.stageAll()
        let stale = h.presigns.removeFirst()
        h.absorb(h.batch.presigned(stale, .failure(UploadError(.presignedURLFailed, "timeout")), now: h.now))
        h.retry("f1")
        #expect(h.presigns.count == 1)
        // The first call's answer arrives again, late: it must not start an upload for the new attempt.
        h.absorb(h.batch.presigned(stale, .success(["f1": .target(BatchHarness.target("f1", expiresAt: nil))]), now: h.now))
        #expect(h.uploads.isEmpty)
    }
}
