import Foundation
import TestSupport
import Testing
import UploadEngine

@testable import HTTPTransport
@testable import S3

/// Upload classifications from raw loopback sockets: reset, refused, stalled.
@Suite(.timeLimit(.minutes(1))) struct CurlUploaderSocketFaultTests {
    private func upload(to url: String, size: Int64 = 4 << 20, stallTimeout: Duration? = nil) async throws -> UploadError {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let path = try scratch.sparseFile("staged.bin", size: size)
        let uploader = CurlUploader(client: try HTTPClient(), stallTimeout: stallTimeout)
        let transfer = UploadTransfer(
            target: UploadTarget(uploadURL: url + "/obj?X-Amz-Signature=topsecret", fileURL: "https://cdn.invalid/o"),
            staged: StagedFile(path: path, size: size, sha256: ""), mimeType: "video/mp4")
        let error = try await #require(throws: UploadError.self) { try await uploader.upload(transfer) { _, _ in } }
        #expect(!error.message.contains("topsecret"))
        return error
    }

    @Test func aResetConnectionIsARetryableUploadFailure() async throws {
        let listener = try LoopbackListener(.resetConnections)
        defer { listener.stop() }

        let error = try await upload(to: listener.url)

        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
    }

    @Test func aRefusedConnectionIsARetryableUploadFailureWithLibcurlsMessage() async throws {
        let reserved = try LoopbackSocket.bound()
        defer { close(reserved.descriptor) }

        let error = try await upload(to: "http://127.0.0.1:\(reserved.port)")

        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
        #expect(error.message.contains("Couldn't connect to server"))
    }

    @Test func anUploadThatStopsMovingIsStalled() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }

        let error = try await upload(to: listener.url, size: 64 << 20, stallTimeout: .milliseconds(1500))

        #expect(error.code == .uploadStalled)
        #expect(error.isRetryable)
    }
}
