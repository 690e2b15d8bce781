import HTTPTransport
import UploadEngine

extension S3Error {
    /// How the engine reports a storage step that failed with this error: S3's own answers go through the storage
    /// table (`CurlUploader.classify`); an object too large for S3 is `ERR_FILE_SIZE_EXCEEDED` (rejected); anything
    /// else is `ERR_S3_UPLOAD_FAILED`, retryable as this error says.
    public func uploadError(retryAfter: Duration? = nil) -> UploadError {
        if let response {
            return CurlUploader.classify(response, retryAfter: retryAfter)
        }
        if code == .objectTooLarge {
            return UploadError(.fileSizeExceeded, message, retryable: false)
        }
        return UploadError(.s3UploadFailed, description, retryable: isRetryable, retryAfter: retryAfter)
    }
}
