import WireFormat

/// A media message as the message API received it (`docs/wire-format.md#http-messages`), decoded.
public struct CapturedMessage: Sendable, Hashable {
    /// The receiver's uid or guid.
    public var receiver: String
    /// `user` or `group`.
    public var receiverType: String
    /// `message`.
    public var category: String
    /// `image`, `video`, `audio` or `file`.
    public var type: String
    /// The client's message id, used for deduplication.
    public var muid: String?
    /// The parent message id (numbers are read as their decimal text).
    public var parentId: String?
    /// Top-level tags.
    public var tags: [String]?
    /// The message's `data`.
    public var data: Payload

    /// The `data` of a media message.
    public struct Payload: Sendable, Hashable {
        /// The caption.
        public var text: String?
        /// Free-form metadata (Attache adds `batchId`).
        public var metadata: [String: JSONValue]?
        /// The attachments, in order.
        public var attachments: [Attachment]
    }

    /// One attachment of a captured message.
    public struct Attachment: Sendable, Hashable {
        /// Where the file is.
        public var url: String
        /// The display name.
        public var name: String
        /// The mime type.
        public var mimeType: String
        /// The lower-case extension without the dot.
        public var `extension`: String
        /// The size in bytes.
        public var size: Int64
    }
}
