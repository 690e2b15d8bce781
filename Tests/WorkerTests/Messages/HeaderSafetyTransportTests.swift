import DevServices
import Foundation
import Testing
import UploadEngine
import TestSupport

@testable import Worker
import HTTPTransport
import S3
import WireFormat

/// The HTTP layer's last line of defence (`docs/contract.md`, "Header safety"): a request that would carry a control
/// character in a header fails before anything goes out, whoever built it.
@Suite(.timeLimit(.minutes(1))) struct HeaderSafetyTransportTests {
    private static let message = MediaMessageRequest(
        receiver: Receiver(id: "uid-1", type: .user), type: .file, muid: "m-1",
        data: .init(attachments: [.init(url: "https://cdn.invalid/a.pdf", name: "a.pdf", mimeType: "application/pdf",
                                        extension: "pdf", size: 10)]))

    @Test(arguments: [HTTPHeader("X-Ok", "1\r\nX-Evil: 1"), HTTPHeader("X-Evil: 1\r\nX-Ok", "1"), HTTPHeader("X-Nul", "a\u{0}b")])
    func aRequestWithAControlCharacterInAHeaderFailsAndNothingIsSent(header: HTTPHeader) async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }
        let client = try HTTPClient()
        await #expect {
            _ = try await client.send(HTTPRequest(method: "POST", url: capture.url, headers: [header], body: Data("{}".utf8)))
        } throws: { error in
            (error as? HTTPTransportError)?.code == .invalidHeader
        }
        #expect(capture.requests.isEmpty)
    }

    @Test func aSenderWithALineBreakNeverReachesTheMessageAPI() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }
        let api = MessageAPIClient(url: capture.url, apiKey: "key", client: try HTTPClient(), clock: ManualClock(sleeping: .jumpsToDeadline))
        await #expect {
            _ = try await api.send(Self.message, onBehalfOf: "u\r\nX-Evil: 1")
        } throws: { error in
            (error as? HTTPTransportError)?.code == .invalidHeader && (error as? HTTPTransportError)?.isRetryable == false
        }
        #expect(capture.requests.isEmpty)
        // The same client still sends a clean request.
        _ = try await api.send(Self.message, onBehalfOf: "u")
        #expect(capture.requests.count == 1)
    }

    @Test func anUploadWhoseTargetCarriesALineBreakFailsAsAnInvalidURL() async throws {
        let uploader = CurlUploader(client: try HTTPClient())
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("header-safety-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("hello".utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let target = UploadTarget(uploadURL: "http://127.0.0.1:9/put", fileURL: "http://127.0.0.1:9/f")
        let transfer = UploadTransfer(target: target, staged: StagedFile(path: path, size: 5, sha256: ""),
                                      mimeType: "text/plain;\r\nX-Evil: 1")
        await #expect {
            try await uploader.upload(transfer) { _, _ in }
        } throws: { error in
            (error as? UploadError)?.code == .invalidURL
        }
    }
}
