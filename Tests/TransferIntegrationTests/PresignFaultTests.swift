import DevServices
import Foundation
import TestSupport
import Testing
import UploadEngine

/// The presign endpoint's refusals and failures, and batch presign isolation, through the whole engine.
@Suite(.timeLimit(.minutes(1))) struct PresignFaultTests {
    static func file(_ fileId: String, mimeType: String = "image/jpeg") -> FileItem {
        FileItem(fileId: fileId, name: "\(fileId).jpg", mimeType: mimeType, source: .data(TestBytes.make(64 * 1024)))
    }

    @Test func aRefusalByThePresignServiceRejectsTheFileWithPresignedURLFailed() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.presign.faults.inject(.refuseFile(), target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file("f1")]))

        let rejection = try #require(harness.rejections(of: "f1").first)
        #expect(rejection.code == .presignedURLFailed)
        #expect(!rejection.isRetryable)
        #expect(harness.failures(of: "f1").isEmpty)
        #expect(result.rejected.map(\.error.code) == ["ERR_PRESIGNED_URL_FAILED"])
        #expect(harness.services.store.requests.isEmpty)
    }

    @Test func aPolicyRefusalRejectsTheFileWithTheServicesOwnCode() async throws {
        var options = TransferHarness.Options()
        options.services.presign.policy = PresignPolicy(allowedMimeTypes: ["image/*"])
        let harness = try TransferHarness(options)
        defer { harness.stop() }

        let result = try #require(await harness.run([Self.file("f1", mimeType: "application/pdf")]))

        #expect(harness.rejections(of: "f1").map(\.code) == ["ERR_FILE_TYPE_NOT_ALLOWED"])
        #expect(result.rejected.map(\.error.retryable) == [false])
    }

    @Test func aPresignServerErrorOnAOneFileCallFailsTheFileWithPresignedURLFailed() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.presign.faults.inject(.serverError(status: 503))

        let result = try #require(await harness.run([Self.file("f1")]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .presignedURLFailed)
        #expect(failure.error.isRetryable)
        #expect(result.failed.map(\.error.code) == ["ERR_PRESIGNED_URL_FAILED"])
        #expect(harness.services.presign.faults.firingCount(.serverError) == 1)
    }

    @Test func aPresignCallStillAnsweringAtPresignTimeoutFailsEachFileWithPresignedURLFailed() async throws {
        var options = TransferHarness.Options()
        options.presignTimeout = .milliseconds(300)
        options.concurrency = 2
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        // Five bytes a second: bytes keep moving, so only the call's own limit ends it.
        harness.services.presign.faults.inject(.trickleResponse(bytesPerSecond: 5))

        let result = try #require(await harness.run([Self.file("f1"), Self.file("f2")]))

        for fileId in ["f1", "f2"] {
            let failure = try #require(harness.failures(of: fileId).first)
            #expect(failure.error.code == .presignedURLFailed)
            #expect(failure.error.isRetryable)
            // The configured limit ended the call, not the 30 s default. Read from the transport's own report of the
            // time the call took, not from the test's clock: with every suite running at once on two cores, the
            // whole run once took 25 s here.
            let elapsed = Self.timedOutAfter(failure.error.message)
            #expect(elapsed.map { $0 >= 300 && $0 < 30_000 } == true, "timed out after \(elapsed.map(String.init) ?? "?") ms")
        }
        #expect(Set(result.failed.map(\.fileId)) == ["f1", "f2"])
        #expect(harness.services.store.requests.isEmpty)
    }

    /// The milliseconds in libcurl's "Operation timed out after N milliseconds", nil when the text has none.
    private static func timedOutAfter(_ message: String) -> Int? {
        guard let range = message.range(of: "timed out after ") else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func aFailedBatchPresignCallIsRepeatedFileByFileAndEveryFileUploads() async throws {
        var options = TransferHarness.Options()
        options.concurrency = 3
        // The three files are one cohort; however slowly a loaded machine stages them, they wait for each other.
        options.presignGatherWindow = .seconds(20)
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        harness.services.presign.faults.inject(.failMultiFileCalls(status: 500))

        let result = try #require(await harness.run([Self.file("f1"), Self.file("f2"), Self.file("f3")]))

        #expect(result.successful.map(\.fileId) == ["f1", "f2", "f3"])
        let calls = harness.services.presign.calls
        #expect(calls.first?.status == 500)
        #expect(Set(calls.first?.fileIds ?? []) == ["f1", "f2", "f3"])
        #expect(calls.dropFirst().allSatisfy { $0.status == 200 && $0.files.count == 1 })
        #expect(calls.dropFirst().flatMap(\.fileIds).sorted() == ["f1", "f2", "f3"])
        #expect(harness.services.store.objects.count == 3)
    }
}
