import Foundation
import TestSupport
import Testing
import UploadEngine

@testable import Worker
import HTTPTransport
import WireFormat

@Suite(.nginx, .timeLimit(.minutes(1))) struct PresignEndpointClientTests {
    let nginx = NginxServer.current!
    static let context = BatchContext(
        batchId: "trip-42", receiver: Receiver(id: "uid-1", type: .user), sender: "uid-7", parentMessageId: "1234")

    static func files(_ ids: [String]) -> [PresignFile] {
        ids.map { PresignFile(fileId: $0, name: "\($0).bin", mimeType: "image/jpeg", size: 100, sha256: "00") }
    }

    @Test func aBatchAnswerBecomesTargetsAndRefusals() async throws {
        let presigner = PresignEndpointClient(url: nginx.url("/presign/batch"), client: try HTTPClient())

        let outcomes = try await presigner.presign(Self.files(["f1", "f2", "f3", "f4"]), in: Self.context)

        #expect(Set(outcomes.keys) == ["f1", "f2", "f3", "f4"])
        #expect(
            outcomes["f1"]
                == .target(
                    UploadTarget(
                        uploadURL: "https://storage.invalid/b/f1?X-Amz-Signature=s1", method: "PUT",
                        headers: [HTTPHeader("Content-Type", "image/jpeg"), HTTPHeader("x-amz-meta-batch", "trip-42")],
                        fileURL: "https://cdn.invalid/f1.jpg",
                        expiresAt: Date(timeIntervalSince1970: 1_893_553_445.25))))
        #expect(
            outcomes["f2"]
                == .target(
                    UploadTarget(
                        uploadURL: "https://storage.invalid/b/f2?sig=2", method: "PUT", headers: [],
                        fileURL: "https://cdn.invalid/f2.pdf", expiresAt: Date(timeIntervalSince1970: 1_893_456_000))))
        #expect(
            outcomes["f3"]
                == .refused(
                    UploadError(UploadErrorCode("ERR_FILE_TYPE_NOT_ALLOWED"), "executables are not allowed", retryable: false)))
        guard case .refused(let refusal) = outcomes["f4"] else {
            Issue.record("f4 should be refused")
            return
        }
        #expect(refusal.code == .presignedURLFailed)
        #expect(!refusal.isRetryable)
        #expect(refusal.message == "quota exhausted")
    }

    @Test func aServerErrorThrowsSoTheEngineFallsBackToOneFileCalls() async throws {
        let presigner = PresignEndpointClient(url: nginx.url("/presign/down?token=hush"), client: try HTTPClient())

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await presigner.presign(Self.files(["f1"]), in: Self.context)
        }

        #expect(error?.code == .unexpectedStatus)
        #expect(error?.status == 502)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("hush") == false)
    }

    @Test(arguments: ["/presign/garbage", "/presign/wrong-shape", "/json"])
    func anAnswerThatIsNotThePresignShapeThrows(path: String) async throws {
        let presigner = PresignEndpointClient(url: nginx.url(path), client: try HTTPClient())

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await presigner.presign(Self.files(["f1"]), in: Self.context)
        }

        #expect(error?.code == .malformedResponse)
    }

    @Test func aClientErrorStatusThrowsAsNotRetryable() async throws {
        let presigner = PresignEndpointClient(url: nginx.url("/fault/400"), client: try HTTPClient())

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await presigner.presign(Self.files(["f1"]), in: Self.context)
        }

        #expect(error?.status == 400)
        #expect(error?.isRetryable == false)
    }

    @Test func anUnreachableEndpointThrowsATransportError() async throws {
        let reserved = try LoopbackSocket.bound()
        defer { close(reserved.descriptor) }
        let presigner = PresignEndpointClient(url: "http://127.0.0.1:\(reserved.port)/presign", client: try HTTPClient())

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await presigner.presign(Self.files(["f1"]), in: Self.context)
        }

        #expect(error?.code == .transport)
    }
}
