import Foundation
import HTTPTransport
import UploadEngine

/// S3's answer to CreateMultipartUpload: the upload id every part and the completion refer to.
public struct S3InitiateMultipartUploadResult: Sendable, Hashable {
    /// The bucket the upload goes to.
    public var bucket: String
    /// The object's key.
    public var key: String
    /// The id every part and the completion refer to.
    public var uploadId: String

    /// A result with the given fields.
    public init(bucket: String, key: String, uploadId: String) {
        self.bucket = bucket
        self.key = key
        self.uploadId = uploadId
    }

    /// Parses the answer to CreateMultipartUpload.
    /// - Throws: `S3Error`: `.serviceError` for an error answer, `.malformedResponse` when there is no `UploadId`.
    public init(status: Int, body: Data) throws {
        let document = try S3XMLElement.answer(status: status, body: body, root: "InitiateMultipartUploadResult")
        guard let uploadId = document.childText("UploadId"), !uploadId.isEmpty else {
            throw S3Error(.malformedResponse, "the InitiateMultipartUploadResult has no UploadId", retryable: true)
        }
        guard MultipartUpload.isKeepable(uploadId, maxBytes: MultipartUpload.maxUploadIdBytes) else {
            throw S3Error(.malformedResponse, "the UploadId storage answered takes \(uploadId.utf8.count) bytes or holds control "
                          + "characters; at most \(MultipartUpload.maxUploadIdBytes) printable bytes are kept")
        }
        self.init(bucket: document.childText("Bucket") ?? "", key: document.childText("Key") ?? "", uploadId: uploadId)
    }
}
