import Foundation
import UploadEngine

/// An S3 `<Error>` document: `<Error><Code>AccessDenied</Code><Message>Request has expired</Message>…</Error>`.
public struct S3ErrorResponse: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status the error came with (S3 sends some errors with 200, e.g. a failed CompleteMultipartUpload).
    public var status: Int
    /// S3's error code, e.g. `AccessDenied`, `SignatureDoesNotMatch`, `NoSuchUpload`, `InternalError`.
    public var code: String
    /// S3's explanation, e.g. `Request has expired`.
    public var message: String
    /// S3's id of the failed request, for support cases.
    public var requestId: String?

    /// An error answer with the given fields.
    public init(status: Int, code: String, message: String, requestId: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.requestId = requestId
    }

    /// The first `<Error>` element of `body`, wherever it sits (S3 puts it at the root; IAM-style answers nest it
    /// in `<ErrorResponse><Errors>`); nil when the body is not XML, holds no `<Error>`, or one with neither code
    /// nor message. Entities are decoded.
    public init?(status: Int, body: Data) {
        guard let root = try? S3XMLElement.parse(body), let error = root.firstDescendant(named: "Error") else {
            return nil
        }
        let code = error.childText("Code") ?? ""
        let message = error.childText("Message") ?? ""
        guard !code.isEmpty || !message.isEmpty else { return nil }
        self.init(
            status: status, code: code, message: message,
            requestId: error.childText("RequestId") ?? root.childText("RequestId"))
    }

    /// Whether this is S3's answer to a presigned URL used after its `X-Amz-Expires` ran out (403 `AccessDenied`
    /// "Request has expired"), or to an expired session token (`ExpiredToken`).
    public var isExpiredRequest: Bool {
        CurlUploader.saysURLExpired(status: status, storageCode: code, message: message)
    }

    /// Whether trying again may succeed, by the storage table of `CurlUploader` (5xx but 501, throttling,
    /// timeouts, transient store codes whatever the status, and expired URLs, which a retry signs afresh).
    public var isRetryable: Bool {
        uploadError.isRetryable
    }

    /// How the engine reports a failed upload with this answer, by the same table as every storage failure: an
    /// expired URL is `ERR_PRESIGNED_URL_EXPIRED` (re-presigned on retry), anything else `ERR_S3_UPLOAD_FAILED`,
    /// retryable only when `isRetryable`.
    public var uploadError: UploadError {
        CurlUploader.classify(self)
    }

    /// `Code: Message`.
    public var description: String { [code, message].filter { !$0.isEmpty }.joined(separator: ": ") }
}
