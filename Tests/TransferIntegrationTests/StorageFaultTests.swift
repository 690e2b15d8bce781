import DevServices
import Foundation
import TestSupport
import Testing
import UploadEngine

/// Each transport error code of an upload, produced by a real fault of the object store (or of the presigned
/// URLs it is given), through the whole engine.
@Suite(.timeLimit(.minutes(1))) struct StorageFaultTests {
    static func file(_ fileId: String = "f1", size: Int = 256 * 1024) -> FileItem {
        FileItem(fileId: fileId, name: "\(fileId).bin", mimeType: "application/octet-stream", source: .data(TestBytes.make(size)))
    }

    @Test func aStoreServerErrorFailsTheFileWithS3UploadFailed() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.store.faults.inject(.serverError(status: 503), target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file()]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .s3UploadFailed)
        #expect(failure.error.isRetryable)
        #expect(failure.error.message.contains("503"))
        #expect(failure.willRetry == false)
        #expect(result.failed.map(\.error.code) == ["ERR_S3_UPLOAD_FAILED"])
        #expect(harness.services.store.faults.firingCount(.serverError) == 1)
    }

    @Test func aConnectionDroppedMidBodyFailsTheFileWithS3UploadFailed() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.store.faults.inject(.dropConnection(afterBodyBytes: 64 * 1024), target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file(size: 512 * 1024)]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .s3UploadFailed)
        #expect(failure.error.isRetryable)
        #expect(result.failed.map(\.fileId) == ["f1"])
        #expect(harness.services.store.faults.firingCount(.dropConnection) == 1)
        #expect(harness.services.store.objects.isEmpty)
    }

    @Test func aStalledStoreFailsTheFileWithUploadStalled() async throws {
        var options = TransferHarness.Options()
        options.stallTimeout = .seconds(2)
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        harness.services.store.faults.inject(.stall(afterBodyBytes: 16 * 1024), target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file()]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .uploadStalled)
        #expect(failure.error.isRetryable)
        #expect(result.failed.map(\.error.code) == ["ERR_UPLOAD_STALLED"])
        #expect(harness.services.store.objects.isEmpty)
    }

    @Test func anExpiredPresignedURLFailsTheFileWithPresignedURLExpiredBeforeAnythingIsSent() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.presign.faults.inject(.expiredURLs, target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file()]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .presignedURLExpired)
        #expect(failure.error.isRetryable)
        #expect(result.failed.map(\.error.code) == ["ERR_PRESIGNED_URL_EXPIRED"])
        #expect(!harness.services.store.requests.contains { $0.method == "PUT" })
    }

    @Test func theStoresRequestHasExpiredAnswerFailsTheFileWithPresignedURLExpired() async throws {
        var options = TransferHarness.Options()
        // A backend that does not report `expiresAt`: only the store can tell the URL has expired.
        options.presigner = { UnreportedExpiry(inner: $0) }
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        harness.services.presign.faults.inject(.expiredURLs, target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file()]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .presignedURLExpired)
        #expect(failure.error.message.contains("Request has expired"))
        #expect(result.failed.map(\.error.code) == ["ERR_PRESIGNED_URL_EXPIRED"])
        #expect(harness.services.store.requests.contains { $0.method == "PUT" && $0.status == 403 })
    }

    @Test func aMalformedPresignedURLFailsTheFileWithInvalidURL() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        harness.services.presign.faults.inject(.malformedURLs(), target: .fileId("f1"))

        let result = try #require(await harness.run([Self.file()]))

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .invalidURL)
        #expect(failure.error.isRetryable)
        #expect(result.failed.map(\.error.code) == ["ERR_INVALID_URL"])
        #expect(harness.services.store.requests.isEmpty)
    }

    @Test func aMalformedURLIsPresignedAgainOnTheAutomaticRetry() async throws {
        var options = TransferHarness.Options()
        options.maxAttempts = 2
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        harness.services.presign.faults.inject(.malformedURLs(), target: .fileId("f1"), times: 1)

        let result = try #require(await harness.run([Self.file()]))

        #expect(harness.failures(of: "f1").map(\.error.code) == [.invalidURL])
        #expect(result.successful.map(\.fileId) == ["f1"])
        #expect(harness.services.presign.calls.count == 2)
    }

    @Test func removingAnUploadingFileCancelsItsTransferAndTheStoreSeesTheConnectionEnd() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        // Larger than what loopback socket buffers hold, so the client cannot have sent it all while stalled.
        let size: Int64 = 48 * 1024 * 1024
        let source = harness.sourceRoot.appendingPathComponent("big.bin")
        try #require(FileManager.default.createFile(atPath: source.path, contents: nil))
        let handle = try FileHandle(forWritingTo: source)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        let store = harness.services.store
        store.faults.inject(.stall(afterBodyBytes: 1024 * 1024), target: .fileId("big"))

        harness.runner.upload(
            [FileItem(fileId: "big", name: "big.bin", mimeType: "application/octet-stream", source: .path("big.bin"))],
            requestId: TransferHarness.requestId)
        #expect(await eventually { store.faults.stalledRequests == 1 })
        #expect(harness.client.runningTransfers == 1)

        #expect(harness.runner.remove(fileId: "big") == .applied)
        await harness.recorder.waitForCompletions(1)
        store.faults.releaseStalls()

        let path = "/" + harness.key(fileId: "big", name: "big.bin")
        #expect(await eventually { store.requests.contains { $0.method == "PUT" && $0.path == path && $0.status == nil } })
        #expect(await eventually { harness.client.runningTransfers == 0 })
        #expect(harness.wasRemoved("big"))
        #expect(harness.failures(of: "big").isEmpty)
        #expect(store.objects.isEmpty)
        #expect(await eventually { harness.stagedFiles.isEmpty })
    }
}

/// A presigner that drops `expiresAt` from its targets, like a backend that does not report it.
struct UnreportedExpiry: Presigner {
    let inner: any Presigner

    func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
        try await inner.presign(files, in: context).mapValues { outcome in
            guard case .target(var target) = outcome else { return outcome }
            target.expiresAt = nil
            return .target(target)
        }
    }
}
