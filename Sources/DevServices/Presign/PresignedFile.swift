/// One file of a presign call and its outcome.
public struct PresignedFile: Sendable, Hashable {
    /// The file id.
    public var fileId: String
    /// The display name.
    public var name: String
    /// The declared mime type (`application/octet-stream` when none was given).
    public var mimeType: String
    /// The declared size, if given.
    public var size: Int64?
    /// The object key its upload URL points at; nil when refused or when the call failed as a whole.
    public var objectKey: String?
    /// The refusal, when the file was refused.
    public var refusal: PresignRefusal?
}
