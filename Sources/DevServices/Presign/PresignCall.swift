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
    /// The call's `traceparent` header, if it had one.
    public var traceparent: String? = nil

    /// The file ids asked for, in request order.
    public var fileIds: [String] { files.map(\.fileId) }
}
