import Foundation
import Testing
@testable import UploadEngine

/// The reference's "Reliability behavior" section and the transport rows of its error table.
@Suite struct UploadFailureTests {
    private func uploading(_ configure: (inout EngineConfiguration) -> Void = { _ in }) -> BatchHarness {
        var h = BatchHarness(configure: configure)
        h.add([inline("f1", size: 1000)])
        h.stageAll()
        h.presignAll()
        return h
    }

    @Test func aStorageErrorFailsTheFileRetryablyWithTheTransportsMessage() {
        var h = uploading { $0.retry.maxAttempts = 1 }
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "HTTP 503 Service Unavailable"))
        let failure = h.failures(of: "f1").first
        #expect(failure?.error == UploadError(.s3UploadFailed, "HTTP 503 Service Unavailable"))
        #expect(failure?.error.isRetryable == true)
        #expect(h.rejection(of: "f1") == nil, "exactly one of rejected and failed")
        #expect(h.completions.last?.failed.first?.error.message == "HTTP 503 Service Unavailable")
    }

    @Test func anUploadWithNoProgressFor30SecondsIsAbortedAsStalled() {
        var h = uploading { $0.retry.maxAttempts = 1 }
        let token = h.uploads[0].token
        h.advance(.seconds(29))
        #expect(h.failures(of: "f1").isEmpty)
        h.advance(.seconds(1))
        #expect(h.cancelled == [token])
        #expect(h.failures(of: "f1").map(\.error.code) == [.uploadStalled])
        #expect(h.batch.state(of: "f1") == .failed)
    }

    @Test func progressRestartsTheStallTimer() {
        var h = uploading { $0.retry.maxAttempts = 1 }
        h.advance(.seconds(20))
        h.progress("f1", sent: 10)
        h.advance(.seconds(20))
        #expect(h.failures(of: "f1").isEmpty)
        #expect(h.batch.nextDeadline == h.now + .seconds(10))
        h.advance(.seconds(10))
        #expect(h.failures(of: "f1").map(\.error.code) == [.uploadStalled])
    }

    /// An uploader repeats its last progress while it waits on the worker's own limits or storage's answer (a
    /// bandwidth cap, CompleteMultipartUpload): waiting is never a stall.
    @Test func aRepeatedProgressReportRestartsTheStallTimerToo() {
        var h = uploading { $0.retry.maxAttempts = 1 }
        h.progress("f1", sent: 10)
        h.advance(.seconds(25))
        h.progress("f1", sent: 10)
        h.advance(.seconds(25))
        #expect(h.failures(of: "f1").isEmpty)
        h.advance(.seconds(5))
        #expect(h.failures(of: "f1").map(\.error.code) == [.uploadStalled], "silence still stalls")
    }

    @Test func theStallTimeoutIsConfigurable() {
        var h = uploading { $0.stallTimeout = .seconds(5); $0.retry.maxAttempts = 1 }
        h.advance(.seconds(5))
        #expect(h.failures(of: "f1").map(\.error.code) == [.uploadStalled])
    }

    @Test func aURLThatExpiredBeforeTheTransferStartsFailsWithoutUploading() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("f1")])
        h.stageAll()
        h.presignAll(expiresAt: h.now)
        #expect(h.uploads.isEmpty)
        #expect(h.failures(of: "f1").map(\.error.code) == [.presignedURLExpired])
        #expect(h.failures(of: "f1").first?.error.isRetryable == true)
    }

    @Test func retryingAnExpiredURLRequestsAFreshOne() {
        var h = BatchHarness { $0.retry.maxAttempts = 1 }
        h.add([inline("f1")])
        h.stageAll()
        h.presignAll(expiresAt: h.now.addingTimeInterval(-1))
        h.advance(.seconds(3600))
        #expect(h.retry("f1") == .applied)
        #expect(h.presignCalls == [["f1"], ["f1"]])
        #expect(h.stages.isEmpty, "the retained bytes are reused")
        h.presignAll()
        h.finishUpload("f1")
        #expect(h.batch.state(of: "f1") == .uploaded)
    }

    /// `presign.minValidity`: a kept URL is reused for a retry only while it stays valid that much longer.
    @Test(arguments: [(Duration.seconds(90), false), (.seconds(30), true)])
    func aKeptURLAboutToExpireIsPresignedAgainBeforeTheRetry(validityLeft: Duration, presignsAgain: Bool) {
        var h = BatchHarness { $0.retry.maxAttempts = 2; $0.presignMinValidity = .seconds(60) }
        h.add([inline("f1")])
        h.stageAll()
        h.presignAll(expiresAt: h.now + .seconds(2) + validityLeft)
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "HTTP 503", retryable: true))
        h.advance(.seconds(2))
        #expect(h.presignCalls.count == (presignsAgain ? 2 : 1))
        #expect(h.uploads.count == (presignsAgain ? 0 : 1))
    }

    @Test func storageSayingTheURLExpiredFailsWithExpiredAndTheRetryRepresigns() {
        var h = uploading()
        h.finishUpload("f1", error: UploadError(.presignedURLExpired, "AccessDenied: Request has expired"))
        #expect(h.failures(of: "f1").first?.willRetry == true)
        h.advance(.seconds(2))
        #expect(h.presignCalls.count == 2)
    }

    @Test func aMalformedUploadURLFailsWithInvalidURLAndTheRetryRequestsAFreshOne() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.stageAll()
        h.answerPresign { _ in .success(["f1": .target(BatchHarness.target("f1", expiresAt: nil, url: "ht!tp://bad url"))]) }
        #expect(h.uploads.isEmpty)
        #expect(h.failures(of: "f1").map(\.error.code) == [.invalidURL])
        #expect(h.failures(of: "f1").first?.willRetry == true)
        h.advance(.seconds(2))
        #expect(h.presignCalls == [["f1"], ["f1"]])
        h.presignAll()
        h.finishUpload("f1")
        #expect(h.batch.attachments.map(\.fileId) == ["f1"])
    }

    @Test(arguments: ["ftp://store.test/x", "/relative/path", "https://", "not a url", "ht!tp://bad url",
                      "https:/store.test/x", "https://:443/x", "https://user@/x", "https://[]/x", "https://[::1/x",
                      "httpss://store.test/x", "http//store.test/x", "hxxp://store.test/x", "http:", "http:/", "http:/x//y",
                      "http://a@b@/x", "https://user@[]/x", "htt://store.test/x", "\u{48}TTP\u{60}://store.test/x"])
    func onlyAbsoluteHTTPURLsWithAHostAreUsable(url: String) {
        #expect(!UploadBatch.isUsableUploadURL(url))
    }

    @Test(arguments: ["https://store.test/x", "HTTP://store.test", "Https://user:pw@store.test:9000/a?b=c#d",
                      "http://[::1]:8080/x", "https://store.test?X-Amz-Signature=0", "http://127.0.0.1/x/y",
                      "hTtPs://store.test#f", "http://a@b@store.test/x", "http://user@[::1]/x", "http://h"])
    func absoluteHTTPURLsWithAHostAreUsable(url: String) {
        #expect(UploadBatch.isUsableUploadURL(url))
    }

    @Test func aNonRetryableStorageErrorRejectsTheFile() {
        var h = uploading()
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "403 SignatureDoesNotMatch", retryable: false))
        #expect(h.rejection(of: "f1")?.code == .s3UploadFailed)
        #expect(h.failures(of: "f1").isEmpty)
        #expect(h.batch.status == .idle)
    }

    @Test func sourceFetchFailuresAreRetryableAndUnresolvableSourcesAreRejected() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 2)
        h.add([remote("flaky"), remote("gone")])
        h.stage("flaky", error: UploadError(.sourceFetchFailed, "HTTP 502"))
        h.stage("gone", error: UploadError(.sourceUnresolvable, "HTTP 404"))
        #expect(h.batch.state(of: "flaky") == .failed)
        #expect(h.batch.state(of: "gone") == .rejected)
    }
}
