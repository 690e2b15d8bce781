import Foundation
@testable import S3
import TestSupport
import Testing
import HTTPTransport
import WireFormat

/// Header-signed requests against moto with signature checking on: moto recomputes every `Authorization`
/// signature with botocore's S3 signer and the IAM user's secret, so these tests are an independent verifier of
/// our canonical requests. (moto does not check presigned query URLs in this mode; it fails them with a 500.)
@Suite(.motoServer(checkingSignaturesAfter: S3MotoIAMUser.setupRequestCount))
struct S3MotoSignatureCheckTests {
    static func fixture() async throws -> S3IntegrationFixture {
        let credentials = try await S3MotoIAMUser.shared.credentials(on: try S3MotoServer.require())
        return try await S3IntegrationFixture.make(credentials: credentials)
    }

    /// `request` with its `Authorization` header replaced by `change(value)`.
    static func alteringAuthorization(
        _ request: SigV4SignedRequest, _ change: (String) -> String
    ) -> SigV4SignedRequest {
        var altered = request
        altered.headers = request.headers.map { header in
            header.name == "Authorization" ? HTTPHeader(header.name, change(header.value)) : header
        }
        return altered
    }

    @Test func correctlySignedRequestsAreAccepted() async throws {
        let fixture = try await Self.fixture()  // its PUT Bucket already passed the check
        defer { fixture.cleanUp() }
        let key = "uploads/b/f/file name+1.bin"
        let created = try await fixture.send(fixture.presigner.createMultipartUploadRequest(key: key, mimeType: "video/mp4"))
        let upload = try S3InitiateMultipartUploadResult(status: created.status, body: created.body)
        let listed = try await fixture.send(
            fixture.presigner.signedRequest(
                method: "GET", key: nil, query: [SigV4QueryItem("uploads"), SigV4QueryItem("prefix", "uploads/b/")]))
        #expect(listed.status == 200, "ListMultipartUploads answered \(listed.status): \(listed.text)")
        let aborted = try await fixture.send(fixture.presigner.abortMultipartUploadRequest(key: key, uploadId: upload.uploadId))
        #expect(aborted.status == 204, "AbortMultipartUpload answered \(aborted.status): \(aborted.text)")
    }

    @Test func aTamperedSignatureIsRefused() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.cleanUp() }
        let request = fixture.presigner.createMultipartUploadRequest(key: "uploads/b/f/x.bin", mimeType: "image/png")
        let tampered = Self.alteringAuthorization(request) { value in
            let last = value.last == "0" ? "1" : "0"
            return String(value.dropLast()) + last
        }
        let answer = try await fixture.send(tampered)
        #expect(answer.status == 403)
        #expect(S3ErrorResponse(status: answer.status, body: answer.body)?.code == "SignatureDoesNotMatch")
    }

    @Test func aSignedHeaderChangedAfterSigningIsRefused() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.cleanUp() }
        var request = fixture.presigner.createMultipartUploadRequest(key: "uploads/b/f/x.bin", mimeType: "image/png")
        request.headers = request.headers.map { $0.name == "content-type" ? HTTPHeader("content-type", "image/gif") : $0 }
        let answer = try await fixture.send(request)
        #expect(answer.status == 403)
        #expect(S3ErrorResponse(status: answer.status, body: answer.body)?.code == "SignatureDoesNotMatch")
    }

    /// Encryption cannot be dropped by whoever sends the request: its headers are part of the signature.
    @Test func anInitiationWithoutItsSignedEncryptionHeaderIsRefused() async throws {
        var fixture = try await Self.fixture()
        defer { fixture.cleanUp() }
        var configuration = fixture.presigner.configuration
        configuration.serverSideEncryption = S3ServerSideEncryption(.aes256)
        fixture.presigner = try S3Presigner(configuration: configuration)
        let signed = fixture.presigner.createMultipartUploadRequest(key: "uploads/b/f/x.bin", mimeType: "video/mp4")
        var stripped = signed
        stripped.headers.removeAll { $0.name == "x-amz-server-side-encryption" }

        let refused = try await fixture.send(stripped)
        #expect(refused.status == 403)
        #expect(S3ErrorResponse(status: refused.status, body: refused.body)?.code == "SignatureDoesNotMatch")
        let accepted = try await fixture.send(signed)
        #expect(accepted.status == 200, "CreateMultipartUpload answered \(accepted.status): \(accepted.text)")
        let upload = try S3InitiateMultipartUploadResult(status: accepted.status, body: accepted.body)
        _ = try await fixture.send(fixture.presigner.abortMultipartUploadRequest(key: "uploads/b/f/x.bin", uploadId: upload.uploadId))
    }

    @Test func aRequestSignedWithTheWrongSecretIsRefused() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.cleanUp() }
        var configuration = fixture.presigner.configuration
        configuration.credentials.secretAccessKey += "x"
        let impostor = try S3Presigner(configuration: configuration)
        let answer = try await fixture.send(impostor.createMultipartUploadRequest(key: "uploads/b/f/x.bin", mimeType: ""))
        #expect(answer.status == 403)
        #expect(S3ErrorResponse(status: answer.status, body: answer.body)?.code == "SignatureDoesNotMatch")
    }
}
