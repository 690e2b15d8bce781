import Foundation
import WireFormat

/// A file as the presigner sees it.
public struct PresignFile: Sendable, Hashable {
    public var fileId: String
    public var name: String
    public var mimeType: String
    public var size: Int64
    public var sha256: String

    public init(fileId: String, name: String, mimeType: String, size: Int64, sha256: String) {
        self.fileId = fileId
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.sha256 = sha256
    }
}

/// Where and how to upload one file: the answer of a presigner.
public struct UploadTarget: Sendable, Hashable {
    /// The presigned URL. A credential: never log or publish it unredacted.
    public var uploadURL: String
    public var method: String
    /// Headers to send with the upload, in order.
    public var headers: [HTTPHeader]
    /// The URL the file will be reachable at once uploaded (the attachment's `url`).
    public var fileURL: String
    public var expiresAt: Date?

    public init(uploadURL: String, method: String = "PUT", headers: [HTTPHeader] = [], fileURL: String, expiresAt: Date? = nil) {
        self.uploadURL = uploadURL
        self.method = method
        self.headers = headers
        self.fileURL = fileURL
        self.expiresAt = expiresAt
    }

    /// The encryption at rest the upload asks storage for: the value of its `x-amz-server-side-encryption` header
    /// when it is one S3 defines (`AES256`, `aws:kms`, `aws:kms:dsse`); nil otherwise. Only a known word is taken,
    /// so a presign answer cannot put text of its own into the attachment.
    public var serverSideEncryption: String? {
        guard let value = headers.first(where: { $0.name.equalsIgnoringASCIICase("x-amz-server-side-encryption") })?.value
        else { return nil }
        return ["AES256", "aws:kms", "aws:kms:dsse"].first { $0 == value }
    }
}

/// A presigner's answer for one file: a target, or a policy refusal.
public enum PresignOutcome: Sendable, Hashable {
    case target(UploadTarget)
    /// The service refused this file; the file is rejected with this error's code.
    case refused(UploadError)
}

/// Authorises uploads: turns files into upload targets.
///
/// `presign` is called with every file of a job that is ready at once; a throw means the call failed as a whole
/// (transport, 5xx, unparsable answer), after which the engine presigns each file on its own. A throw from a
/// one-file call fails that file with `ERR_PRESIGNED_URL_FAILED` (retryable). Files missing from an answer are
/// presigned again on their own.
public protocol Presigner: Sendable {
    func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome]
    /// Deletes the object behind a removed upload, where Attache owns the storage. Presigners backed by a
    /// backend's endpoint leave this to the backend and do nothing.
    func deleteObject(_ attachment: Attachment, target: UploadTarget) async throws
}

extension Presigner {
    public func deleteObject(_ attachment: Attachment, target: UploadTarget) async throws {}
}
