import Foundation
import HTTPTransport

extension S3XMLElement {
    /// The root of a successful S3 answer whose document element must be `root`.
    ///
    /// A non-2xx status, and a 2xx whose document is an `<Error>` (S3 does this for CompleteMultipartUpload when it
    /// fails after answering 200), become `S3Error` `.serviceError`.
    /// - Throws: `S3Error`: `.serviceError` as above; `.malformedResponse` for a body that is not XML or not the expected
    ///   document (retryable: truncated answers are transient).
    public static func answer(status: Int, body: Data, root: String) throws -> S3XMLElement {
        guard (200..<300).contains(status) else {
            if let error = S3ErrorResponse(status: status, body: body) {
                throw S3Error(error)
            }
            throw S3Error(
                .serviceError, "S3 answered HTTP \(status) without an error document",
                retryable: CurlUploader.isRetryable(status: status, storageCode: ""))
        }
        let document: S3XMLElement
        do { document = try parse(body) } catch {
            throw S3Error(.malformedResponse, error.message, retryable: true)
        }
        if document.name == "Error", let error = S3ErrorResponse(status: status, body: body) {
            throw S3Error(error)
        }
        guard document.name == root else {
            throw S3Error(
                .malformedResponse, "expected an <\(root)> document, got <\(document.name)>", retryable: true)
        }
        return document
    }
}
