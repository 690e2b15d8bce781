/// One presign call the service handled: what was asked and what it answered.
public struct PresignCall: Sendable, Hashable {
    /// The batch id asked for.
    public var batchId: String
    /// The receiver's id.
    public var receiverId: String
    /// The receiver's type (`user` | `group`).
    public var receiverType: String
    /// The sender, if given.
    public var sender: String?
    /// The parent message id, if given.
    public var parentMessageId: String?
    /// The files asked for, in request order, with what each got.
    public var files: [PresignedFile]
    /// The status answered: 200, or the status of a whole-call failure.
    public var status: Int

    /// The file ids asked for, in request order.
    public var fileIds: [String] { files.map(\.fileId) }
}

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
