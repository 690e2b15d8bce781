import Foundation
import HTTPTransport

/// S3's answer to a successful CompleteMultipartUpload.
public struct S3CompleteMultipartUploadResult: Sendable, Hashable {
    /// The object's URL as S3 reports it.
    public var location: String
    /// The bucket the object is in.
    public var bucket: String
    /// The object's key.
    public var key: String
    /// The object's ETag (for multipart objects, `"<md5 of part md5s>-<part count>"`).
    public var etag: String

    /// A result with the given fields.
    public init(location: String, bucket: String, key: String, etag: String) {
        self.location = location
        self.bucket = bucket
        self.key = key
        self.etag = etag
    }

    /// Parses the answer to CompleteMultipartUpload, which may be an `<Error>` even with status 200: the upload
    /// is only complete when this succeeds.
    /// - Throws: `S3Error` `.serviceError` for an error answer (with status 200 included), `.malformedResponse`
    ///   for anything that is not a `CompleteMultipartUploadResult`.
    public init(status: Int, body: Data) throws {
        let document = try S3XMLElement.answer(status: status, body: body, root: "CompleteMultipartUploadResult")
        self.init(
            location: document.childText("Location") ?? "", bucket: document.childText("Bucket") ?? "",
            key: document.childText("Key") ?? "", etag: document.childText("ETag") ?? "")
    }
}
