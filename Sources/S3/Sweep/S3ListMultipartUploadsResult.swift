import Foundation
import HTTPTransport

/// One page of S3's answer to ListMultipartUploads: the incomplete uploads, and where the next page starts.
public struct S3ListMultipartUploadsResult: Sendable, Hashable {
    /// The uploads of this page, in key order.
    public var uploads: [S3IncompleteUpload]
    /// Where the next page starts: the key and upload id markers to ask with; nil on the last page.
    public var nextKeyMarker: String?
    public var nextUploadIdMarker = ""

    /// Parses one page.
    /// - Throws: `S3Error`: `.serviceError` for an error answer, `.malformedResponse` for an upload without its key or
    ///   id, or a truncated page without the markers of the next.
    public init(status: Int, body: Data) throws {
        let document = try S3XMLElement.answer(status: status, body: body, root: "ListMultipartUploadsResult")
        uploads = try document.children(named: "Upload").map { upload in
            guard let key = upload.childText("Key"), let uploadId = upload.childText("UploadId"), !uploadId.isEmpty else {
                throw S3Error(.malformedResponse, "a ListMultipartUploads entry has no Key or UploadId", retryable: true)
            }
            return S3IncompleteUpload(key: key, uploadId: uploadId,
                                      initiated: upload.childText("Initiated").flatMap(S3IncompleteUpload.date(from:)))
        }
        guard document.childText("IsTruncated") == "true" else { return }
        guard let key = document.childText("NextKeyMarker"), !key.isEmpty else {
            throw S3Error(.malformedResponse, "a truncated ListMultipartUploads page has no NextKeyMarker", retryable: true)
        }
        nextKeyMarker = key
        nextUploadIdMarker = document.childText("NextUploadIdMarker") ?? ""
    }
}

/// A multipart upload storage holds that was neither completed nor aborted.
public struct S3IncompleteUpload: Sendable, Hashable {
    public var key: String
    public var uploadId: String
    /// When it was created; nil when storage did not say.
    public var initiated: Date?

    public init(key: String, uploadId: String, initiated: Date?) {
        self.key = key
        self.uploadId = uploadId
        self.initiated = initiated
    }

    /// An ISO 8601 time as S3 writes it, with or without fractional seconds.
    static func date(from text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
