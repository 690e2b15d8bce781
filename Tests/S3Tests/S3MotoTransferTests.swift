import Foundation
@testable import S3
import TestSupport
import Testing
import UploadEngine
import HTTPTransport
import WireFormat

/// Presigned transfers against a real moto S3 server, with Debian's curl as the client.
///
/// moto (5.2.x) in its default mode does not check presigned signatures, expiry or `x-amz-checksum-sha256`
/// values, so refusals of tampered, expired or corrupted uploads cannot be observed here; signature checking is
/// exercised against moto's verifier in `S3MotoSignatureCheckTests`.
@Suite(.motoServer) struct S3MotoTransferTests {
    static let context = BatchContext(batchId: "trip-42", receiver: Receiver(id: "u1", type: .user))

    @Test func presignedUploadWithCurlIsReadBackByteForByte() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let bytes = S3IntegrationFixture.randomBytes(300_000)
        let digest = SigV4Digest.sha256(bytes)
        let file = PresignFile(
            fileId: "f1", name: "holiday photo.jpg", mimeType: "image/jpeg", size: Int64(bytes.count),
            sha256: SigV4Digest.hex(digest))

        let outcomes = try await fixture.presigner.presign([file], in: Self.context)
        guard case .target(let target) = try #require(outcomes["f1"]) else {
            Issue.record("f1 was refused: \(String(describing: outcomes["f1"]))")
            return
        }
        let put = try await fixture.upload(try fixture.file(bytes), to: target)
        #expect(put.status == 200, "PUT answered \(put.status): \(put.text)")

        let key = fixture.presigner.objectKey(batchId: "trip-42", fileId: "f1", name: "holiday photo.jpg")
        #expect(key == "uploads/trip-42/f1/holiday_photo.jpg")
        let get = try await fixture.send(fixture.presigner.presignedGet(key: key))
        #expect(get.status == 200)
        #expect(get.body == bytes)
        #expect(get.header("content-type") == "image/jpeg")

        // The signed checksum reached storage: moto keeps it and returns it when asked.
        let checked = try await fixture.send(
            fixture.presigner.presigned(
                method: "GET", key: key, headers: [HTTPHeader("x-amz-checksum-mode", "ENABLED")]))
        #expect(checked.header("x-amz-checksum-sha256") == S3Checksum.base64(sha256Digest: digest))
    }

    @Test func keysWithSpacesUnicodeAndEscapedIdsAreStoredExactlyAsSigned() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let bytes = Data("hello".utf8)
        let context = BatchContext(batchId: "batch 50%", receiver: Receiver(id: "u1", type: .group))
        let file = PresignFile(
            fileId: "id 7/ü", name: "Résumé (final).pdf", mimeType: "application/pdf", size: 5,
            sha256: SigV4Digest.hex(SigV4Digest.sha256(bytes)))
        let outcomes = try await fixture.presigner.presign([file], in: context)
        guard case .target(let target) = try #require(outcomes["id 7/ü"]) else {
            Issue.record("the file was refused")
            return
        }
        let put = try await fixture.upload(try fixture.file(bytes), to: target)
        #expect(put.status == 200, "PUT answered \(put.status): \(put.text)")

        let listing = try await fixture.send(
            fixture.presigner.signedRequest(
                method: "GET", key: nil, query: [SigV4QueryItem("list-type", "2"), SigV4QueryItem("prefix", "uploads/")]))
        #expect(listing.status == 200)
        let keys = try S3XMLElement.parse(listing.body).children(named: "Contents").compactMap { $0.childText("Key") }
        #expect(keys == ["uploads/batch 50%25/id 7%2Fü/R_sum_final_.pdf"])
        #expect(keys == [fixture.presigner.objectKey(batchId: "batch 50%", fileId: "id 7/ü", name: "Résumé (final).pdf")])

        let get = try await fixture.send(fixture.presigner.presignedGet(key: keys[0]))
        #expect(get.body == bytes)
    }

    @Test func presignedDeleteRemovesTheObject() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let key = fixture.presigner.objectKey(batchId: "b", fileId: "f", name: "gone.txt")
        let target = try fixture.presigner.presignedUpload(key: key, mimeType: "text/plain", sha256Hex: nil, at: Date())
        #expect(try await fixture.upload(try fixture.file(Data("x".utf8)), to: target).status == 200)

        let delete = try await fixture.send(fixture.presigner.presignedDelete(key: key))
        #expect(delete.status == 204)
        let get = try await fixture.send(fixture.presigner.presignedGet(key: key))
        let error = try #require(S3ErrorResponse(status: get.status, body: get.body))
        #expect(error.status == 404)
        #expect(error.code == "NoSuchKey")
    }

    @Test func multipartUploadWithPresignedPartsIsReadBackByteForByte() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let bytes = S3IntegrationFixture.randomBytes(5 * 1024 * 1024 + 123_457)
        let plan = try #require(
            try S3MultipartPlan.plan(
                size: Int64(bytes.count), threshold: 5 * 1024 * 1024, preferredPartSize: S3MultipartPlan.minimumPartSize))
        #expect(plan.partCount == 2)
        let key = fixture.presigner.objectKey(batchId: "b", fileId: "movie", name: "movie.mp4")

        let created = try await fixture.send(fixture.presigner.createMultipartUploadRequest(key: key, mimeType: "video/mp4"))
        let upload = try S3InitiateMultipartUploadResult(status: created.status, body: created.body)
        #expect(upload.key == key)

        var parts: [S3CompletedPart] = []
        for number in plan.partNumbers {
            let range = plan.byteRange(ofPart: number)
            let slice = bytes.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
            let request = try fixture.presigner.presignedUploadPart(
                key: key, uploadId: upload.uploadId, partNumber: number)
            let answer = try await S3Curl.send(
                request.method, request.url, headers: request.headers, bodyFile: try fixture.file(slice),
                in: fixture.directory)
            #expect(answer.status == 200, "part \(number) answered \(answer.status): \(answer.text)")
            parts.append(S3CompletedPart(partNumber: number, etag: try #require(answer.header("ETag"))))
        }

        let completed = try await fixture.send(
            fixture.presigner.completeMultipartUploadRequest(key: key, uploadId: upload.uploadId, parts: parts.reversed()))
        let result = try S3CompleteMultipartUploadResult(status: completed.status, body: completed.body)
        #expect(result.etag.hasSuffix("-2\""))

        let get = try await fixture.send(fixture.presigner.presignedGet(key: key))
        #expect(get.status == 200)
        #expect(get.body == bytes)
        #expect(get.header("content-type") == "video/mp4")
    }

    @Test func completingWithAnUnknownPartIsAServiceError() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let key = "uploads/b/f/broken.bin"
        let created = try await fixture.send(fixture.presigner.createMultipartUploadRequest(key: key, mimeType: ""))
        let upload = try S3InitiateMultipartUploadResult(status: created.status, body: created.body)
        let completed = try await fixture.send(
            fixture.presigner.completeMultipartUploadRequest(
                key: key, uploadId: upload.uploadId,
                parts: [S3CompletedPart(partNumber: 1, etag: "\"00000000000000000000000000000000\"")]))
        #expect {
            try S3CompleteMultipartUploadResult(status: completed.status, body: completed.body)
        } throws: { error in
            let error = error as? S3Error
            return error?.code == .serviceError && error?.response?.code == "InvalidPart" && error?.isRetryable == false
        }
    }

    @Test func abortingAnUploadRemovesItFromTheBucketsOpenUploads() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let key = "uploads/b/f/aborted.bin"
        let created = try await fixture.send(fixture.presigner.createMultipartUploadRequest(key: key, mimeType: ""))
        let upload = try S3InitiateMultipartUploadResult(status: created.status, body: created.body)
        #expect(try await Self.openUploads(fixture) == [upload.uploadId])

        let aborted = try await fixture.send(fixture.presigner.abortMultipartUploadRequest(key: key, uploadId: upload.uploadId))
        #expect(aborted.status == 204)
        #expect(try await Self.openUploads(fixture) == [])
    }

    /// The upload ids of ListMultipartUploads (`GET /bucket?uploads`).
    static func openUploads(_ fixture: S3IntegrationFixture) async throws -> [String] {
        let listing = try await fixture.send(
            fixture.presigner.signedRequest(method: "GET", key: nil, query: [SigV4QueryItem("uploads")]))
        let document = try S3XMLElement.answer(
            status: listing.status, body: listing.body, root: "ListMultipartUploadsResult")
        return document.children(named: "Upload").compactMap { $0.childText("UploadId") }
    }
}
