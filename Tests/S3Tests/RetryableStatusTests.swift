import HTTPTransport
import S3
import Testing

/// The one table of retryable HTTP statuses, and the rows storage adds to it.
@Suite struct RetryableStatusTests {
    @Test(arguments: [408, 429, 500, 502, 503, 504, 599])
    func passingConditionsAreRetried(status: Int) {
        #expect(RetryableStatus.contains(status))
        #expect(HTTPResponse(status: status).isRetryable)
        #expect(CurlUploader.isRetryable(status: status, storageCode: ""))
    }

    @Test(arguments: [200, 204, 301, 304, 400, 401, 403, 404, 409, 410, 413, 501])
    func everythingElseIsFinal(status: Int) {
        #expect(!RetryableStatus.contains(status))
    }

    @Test func storageAddsItsRedirectItsCodelessConflictAndTransientCodes() {
        #expect(CurlUploader.isRetryable(status: 307, storageCode: "TemporaryRedirect"))
        #expect(CurlUploader.isRetryable(status: 409, storageCode: ""))
        #expect(!CurlUploader.isRetryable(status: 409, storageCode: "BucketAlreadyExists"))
        #expect(CurlUploader.isRetryable(status: 400, storageCode: "RequestTimeout"))
        #expect(!CurlUploader.isRetryable(status: 501, storageCode: "NotImplemented"))
        #expect(!RetryableStatus.contains(307))
    }
}
