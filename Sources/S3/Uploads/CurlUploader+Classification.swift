import Foundation
import HTTPTransport
import UploadEngine

/// How a storage failure becomes an `UploadError`: the one table for single `PUT`s, multipart steps and S3's own
/// answers (`S3ErrorResponse`, `S3Error`). Retryable errors make the file *failed* (retried with backoff,
/// re-presigned where the URL is the problem); the rest make it *rejected*.
///
/// | what happened                                                        | code                        | retryable |
/// |----------------------------------------------------------------------|-----------------------------|-----------|
/// | URL malformed, without host, or not `http`/`https`                   | `ERR_INVALID_URL`           | yes: a retry re-presigns |
/// | `expiresAt` passed before the transfer started                       | `ERR_PRESIGNED_URL_EXPIRED` | yes |
/// | 403 `AccessDenied` "Request has expired"; `ExpiredToken` (any 4xx)   | `ERR_PRESIGNED_URL_EXPIRED` | yes |
/// | no byte moved for the stall timeout                                  | `ERR_UPLOAD_STALLED`        | yes |
/// | resolve, connect, reset, timeout, TLS handshake, partial answer      | `ERR_S3_UPLOAD_FAILED` (libcurl's message) | yes |
/// | TLS certificate rejected, too many redirects                         | `ERR_S3_UPLOAD_FAILED`      | no |
/// | the staged file cannot be read                                       | `ERR_S3_UPLOAD_FAILED`      | no |
/// | 5xx except 501 (`InternalError`, `ServiceUnavailable`, `SlowDown`…)  | `ERR_S3_UPLOAD_FAILED`      | yes |
/// | 408, 429; 409 without a code; 307 (`TemporaryRedirect`)              | `ERR_S3_UPLOAD_FAILED`      | yes |
/// | store code `RequestTimeout`, `SlowDown`, `OperationAborted`, `BadDigest`, `IncompleteBody`, `InternalError`, `ServiceUnavailable`, whatever the status (a 200 included) | `ERR_S3_UPLOAD_FAILED` | yes |
/// | any other status or code (403 `SignatureDoesNotMatch`, 400 `InvalidArgument`, `InvalidPart`, 404 `NoSuchBucket`, 411, 413 `EntityTooLarge`, 501…) | `ERR_S3_UPLOAD_FAILED` | no |
///
/// Messages carry the status and the store's `Code: Message`; `retryAfter` comes from `Retry-After` (seconds or
/// HTTP-date) whatever the status.
extension CurlUploader {
    /// Store error codes that name a transient condition, whatever status they come with.
    static let transientStorageCodes: Set<String> = [
        "RequestTimeout", "SlowDown", "OperationAborted", "BadDigest", "IncompleteBody", "InternalError",
        "ServiceUnavailable",
    ]

    /// The error for a non-2xx answer to an upload (or a 2xx whose body is an `<Error>`).
    public static func classify(_ response: HTTPResponse, request: HTTPRequest, now: Date) -> UploadError {
        let answer = S3ErrorResponse(status: response.status, body: response.body)
        var detail = "storage answered \(response.status)"
        if let answer, !answer.description.isEmpty { detail += " \(answer.description)" }
        let message = RedactedURL.scrub("\(detail) (\(request.method) \(request.redactedURL))", of: request.url)
        return classify(
            status: response.status, answer: answer, message: message,
            retryAfter: RetryAfter.parse(response, now: now))
    }

    /// The error for a store's `<Error>` answer, as reported by the S3 answer parsers.
    public static func classify(_ answer: S3ErrorResponse, retryAfter: Duration? = nil) -> UploadError {
        classify(
            status: answer.status, answer: answer, message: "storage answered \(answer.status) \(answer.description)",
            retryAfter: retryAfter)
    }

    /// The error for a transfer that got no usable answer.
    public static func classify(_ error: HTTPTransportError) -> UploadError {
        switch error.code {
        case .invalidURL:
            return UploadError(.invalidURL, error.message, retryable: true)
        case .invalidHeader:
            // Only a presign answer supplies an upload's headers: like a malformed URL, the next attempt presigns again.
            return UploadError(.invalidURL, error.message, retryable: true)
        case .stalled:
            return UploadError(.uploadStalled, error.message, retryable: true)
        case .localFile:
            return UploadError(.s3UploadFailed, "cannot read the staged file: \(error.message)", retryable: false)
        default:
            return UploadError(.s3UploadFailed, error.message, retryable: error.isRetryable, retryAfter: error.retryAfter)
        }
    }

    /// Whether an answer names a condition that can pass: the table's status and store-code rows.
    public static func isRetryable(status: Int, storageCode: String) -> Bool {
        if transientStorageCodes.contains(storageCode) { return true }
        switch status {
        case 307: return true
        case 409: return storageCode.isEmpty
        default: return RetryableStatus.contains(status)
        }
    }

    /// Whether the store said a presigned URL's validity ran out: a 4xx with `AccessDenied` "Request has expired"
    /// or `ExpiredToken`.
    static func saysURLExpired(status: Int, storageCode: String, message: String) -> Bool {
        guard (400..<500).contains(status) else { return false }
        return storageCode == "ExpiredToken"
            || (storageCode == "AccessDenied" && message.range(of: "request has expired", options: .caseInsensitive) != nil)
    }

    private static func classify(status: Int, answer: S3ErrorResponse?, message: String, retryAfter: Duration?)
        -> UploadError
    {
        if let answer, answer.isExpiredRequest {
            return UploadError(.presignedURLExpired, message, retryable: true, retryAfter: retryAfter)
        }
        let retryable = isRetryable(status: status, storageCode: answer?.code ?? "")
        return UploadError(.s3UploadFailed, message, retryable: retryable, retryAfter: retryAfter)
    }
}
