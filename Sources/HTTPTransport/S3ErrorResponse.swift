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
    /// in `<ErrorResponse><Errors>`); nil when the body holds none.
    public init?(status: Int, body: Data) {
        guard let root = try? S3XMLElement.parse(body), let error = root.firstDescendant(named: "Error") else {
            return nil
        }
        self.init(
            status: status, code: error.childText("Code") ?? "", message: error.childText("Message") ?? "",
            requestId: error.childText("RequestId") ?? root.childText("RequestId"))
    }

    /// Whether this is S3's answer to a presigned URL used after its `X-Amz-Expires` ran out.
    public var isExpiredRequest: Bool {
        code == "AccessDenied" && message.range(of: "request has expired", options: .caseInsensitive) != nil
    }

    /// Whether S3 blamed itself (5xx, throttling, timeouts), so the same call may succeed later.
    public var isRetryable: Bool {
        status >= 500 || ["InternalError", "ServiceUnavailable", "SlowDown", "RequestTimeout"].contains(code)
    }

    /// How the engine reports a failed upload with this answer: an expired URL is `ERR_PRESIGNED_URL_EXPIRED`
    /// (re-presigned on retry), anything else `ERR_S3_UPLOAD_FAILED`; both are retryable transport failures.
    public var uploadError: UploadError {
        if isExpiredRequest {
            return UploadError(.presignedURLExpired, "storage refused the upload URL: \(message)", retryable: true)
        }
        return UploadError(.s3UploadFailed, "storage answered \(status) \(description)", retryable: true)
    }

    /// `Code: Message`.
    public var description: String { message.isEmpty ? code : "\(code): \(message)" }
}
