import Foundation
import HTTPTransport
import UploadEngine

extension S3Storage: Presigner {
    /// Presigns with `presigner`: a `PUT` per allowed file, refusals for the rest.
    public func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
        try await presigner.presign(files, in: context)
    }

    /// Deletes a removed upload's object with a presigned `DELETE` of the key its target was signed for. An object
    /// that is already gone counts as deleted.
    /// - Throws: `S3Error` (`.invalidRequest` for a target this bucket did not sign, `.serviceError` for S3's
    ///   refusal), `HTTPTransportError`, `CancellationError`.
    public func deleteObject(_ attachment: Attachment, target: UploadTarget) async throws {
        guard let key = presigner.key(ofURL: target.uploadURL) else {
            throw S3Error(
                .invalidRequest,
                "the upload target of \(attachment.fileId) (\(RedactedURL.redact(target.uploadURL))) is not in this bucket")
        }
        let signed = try presigner.presignedDelete(key: key)
        let response = try await transport.send(
            HTTPRequest(method: signed.method, url: signed.url, headers: signed.headers, timeout: configuration.requestTimeout))
        guard response.isSuccess || response.status == 404 else {
            throw Self.refusal(response, to: "DELETE \(signed.redactedURL)")
        }
    }
}
