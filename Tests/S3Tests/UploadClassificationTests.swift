import Foundation
import Testing
import UploadEngine

@testable import HTTPTransport
@testable import S3

@Suite struct UploadClassificationTests {
    static let request = HTTPRequest(method: "PUT", url: "https://bucket.s3.invalid/k?X-Amz-Credential=AKIA&X-Amz-Signature=ff")

    static func body(_ code: String, _ message: String = "m") -> Data {
        Data("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
    }

    @Test(arguments: [
        (500, "InternalError", UploadErrorCode.s3UploadFailed, true),
        (501, "NotImplemented", .s3UploadFailed, false),
        (502, "", .s3UploadFailed, true),
        (503, "SlowDown", .s3UploadFailed, true),
        (400, "RequestTimeout", .s3UploadFailed, true),
        (400, "BadDigest", .s3UploadFailed, true),
        (400, "IncompleteBody", .s3UploadFailed, true),
        (400, "InvalidArgument", .s3UploadFailed, false),
        (400, "ExpiredToken", .presignedURLExpired, true),
        (403, "SignatureDoesNotMatch", .s3UploadFailed, false),
        (403, "RequestTimeTooSkewed", .s3UploadFailed, false),
        (404, "NoSuchBucket", .s3UploadFailed, false),
        (408, "", .s3UploadFailed, true),
        (409, "OperationAborted", .s3UploadFailed, true),
        (409, "", .s3UploadFailed, true),
        (409, "BucketNotEmpty", .s3UploadFailed, false),
        (411, "MissingContentLength", .s3UploadFailed, false),
        (413, "EntityTooLarge", .s3UploadFailed, false),
        (429, "", .s3UploadFailed, true),
        (307, "TemporaryRedirect", .s3UploadFailed, true),
        (301, "PermanentRedirect", .s3UploadFailed, false),
    ])
    func statusAndStoreCodeDecideRetryability(status: Int, storeCode: String, code: UploadErrorCode, retryable: Bool) {
        let body = storeCode.isEmpty ? Data() : Self.body(storeCode)
        let error = CurlUploader.classify(HTTPResponse(status: status, body: body), request: Self.request, now: Date())
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
        #expect(error.message.contains("\(status)"))
        #expect(!error.message.contains("AKIA") && !error.message.contains("=ff"), "query values are hidden")
    }

    @Test func only403AccessDeniedWithRequestHasExpiredMeansExpired() {
        let expired = HTTPResponse(status: 403, body: Self.body("AccessDenied", "Request has expired"))
        let denied = HTTPResponse(status: 403, body: Self.body("AccessDenied", "Access Denied"))

        #expect(CurlUploader.classify(expired, request: Self.request, now: Date()).code == .presignedURLExpired)
        #expect(CurlUploader.classify(denied, request: Self.request, now: Date()).code == .s3UploadFailed)
        #expect(CurlUploader.classify(denied, request: Self.request, now: Date()).isRetryable == false)
    }

    @Test(arguments: [
        (HTTPTransportError.Code.invalidURL, true, UploadErrorCode.invalidURL, true),
        (.stalled, true, .uploadStalled, true),
        (.transport, true, .s3UploadFailed, true),
        (.transport, false, .s3UploadFailed, false),
        (.localFile, false, .s3UploadFailed, false),
        (.shutDown, false, .s3UploadFailed, false),
    ])
    func transportErrorsMapToUploadCodes(
        transport: HTTPTransportError.Code, transportRetryable: Bool, code: UploadErrorCode, retryable: Bool
    ) {
        let error = CurlUploader.classify(HTTPTransportError(transport, "x", retryable: transportRetryable))
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
    }

    @Test func storeDocumentsAreReadWithEntitiesDecoded() {
        let answer = S3ErrorResponse(status: 400, body: Self.body("InvalidArgument", "a &lt;b&gt; &amp; c"))
        #expect(answer == S3ErrorResponse(status: 400, code: "InvalidArgument", message: "a <b> & c"))
        #expect(S3ErrorResponse(status: 400, body: Data("{\"error\":1}".utf8)) == nil)
        #expect(S3ErrorResponse(status: 400, body: Data("injected server error\n".utf8)) == nil)
        #expect(S3ErrorResponse(status: 400, body: Data("<Error></Error>".utf8)) == nil)
        #expect(S3ErrorResponse(status: 400, body: Data()) == nil)
    }

    @Test(arguments: [
        (500, "InternalError"), (501, "NotImplemented"), (503, "SlowDown"), (400, "RequestTimeout"),
        (400, "InvalidArgument"), (400, "ExpiredToken"), (403, "SignatureDoesNotMatch"), (404, "NoSuchUpload"),
        (409, "OperationAborted"), (409, "BucketNotEmpty"), (200, "InternalError"), (200, "InvalidPart"),
    ])
    func s3AnswersAreClassifiedByTheSameTableAsUploads(status: Int, storeCode: String) throws {
        let answer = try #require(S3ErrorResponse(status: status, body: Self.body(storeCode)))
        let upload = CurlUploader.classify(HTTPResponse(status: status, body: Self.body(storeCode)), request: Self.request, now: Date())

        #expect(answer.uploadError.code == upload.code)
        #expect(answer.uploadError.isRetryable == upload.isRetryable)
        #expect(answer.isRetryable == upload.isRetryable)
    }

    @Test func aCompletionErrorInsideA200IsRetryableOnlyForATransientCode() throws {
        let transient = try #require(S3ErrorResponse(status: 200, body: Self.body("InternalError")))
        let permanent = try #require(S3ErrorResponse(status: 200, body: Self.body("InvalidPart")))
        #expect(transient.uploadError.isRetryable)
        #expect(!permanent.uploadError.isRetryable)
        #expect(permanent.uploadError.code == .s3UploadFailed)
    }
}
