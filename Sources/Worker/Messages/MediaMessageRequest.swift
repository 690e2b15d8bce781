import Foundation
import UploadEngine
import WireFormat

/// The body of a media message as the message API takes it (`docs/wire-format.md#http-messages`), CometChat REST
/// compatible:
/// `{"receiver","receiverType","category":"message","type","muid","parentId"?,"tags"?,
///   "data":{"text"?,"metadata":{…},"attachments":[{"url","name","mimeType","extension","size"}]}}`.
///
/// The same JSON goes to the `attache.messages` topic in `kafka` mode. `parentId`, `tags` and `data.text` are left
/// out when absent (tags also when empty).
public struct MediaMessageRequest: Sendable, Hashable, Encodable {
    /// One attachment as the message carries it.
    public struct AttachmentReference: Sendable, Hashable, Encodable {
        /// The hosted file URL (the presign answer's `fileUrl`).
        public var url: String
        /// The display name.
        public var name: String
        /// The file's mime type.
        public var mimeType: String
        /// The name's extension, lower case, without the dot.
        public var `extension`: String
        /// Bytes.
        public var size: Int64

        /// A reference from its fields.
        public init(url: String, name: String, mimeType: String, extension: String, size: Int64) {
            self.url = url
            self.name = name
            self.mimeType = mimeType
            self.extension = `extension`
            self.size = size
        }

        /// The reference to an uploaded file: its hosted URL, never the upload URL.
        public init(_ attachment: Attachment) {
            self.init(
                url: attachment.url, name: attachment.name, mimeType: attachment.mimeType,
                extension: attachment.extension, size: attachment.size)
        }
    }

    /// The message's `data`.
    public struct Payload: Sendable, Hashable, Encodable {
        /// The caption; only the first message of a drain has one.
        public var text: String?
        /// The job's `message.metadata` with `batchId` added.
        public var metadata: [String: JSONValue]
        /// The files, in input order.
        public var attachments: [AttachmentReference]

        /// A payload; only the attachments are required.
        public init(text: String? = nil, metadata: [String: JSONValue] = [:], attachments: [AttachmentReference]) {
            self.text = text
            self.metadata = metadata
            self.attachments = attachments
        }
    }

    /// The receiver's id.
    public var receiver: String
    /// `user` or `group`.
    public var receiverType: Receiver.Kind
    /// `image`, `video`, `audio` or `file`.
    public var type: MediaKind
    /// The deterministic message id the API deduplicates on.
    public var muid: String
    /// The message this one replies to (the job's `parentMessageId`).
    public var parentId: String?
    /// The job's `message.tags`.
    public var tags: [String]
    /// Caption, metadata and attachments.
    public var data: Payload

    /// A message for `receiver`.
    public init(
        receiver: Receiver, type: MediaKind, muid: String, parentId: String? = nil, tags: [String] = [], data: Payload
    ) {
        self.receiver = receiver.id
        self.receiverType = receiver.type
        self.type = type
        self.muid = muid
        self.parentId = parentId
        self.tags = tags
        self.data = data
    }

    private enum Keys: String, CodingKey {
        case receiver, receiverType, category, type, muid, parentId, tags, data
    }

    /// Writes the documented message shape (`docs/wire-format.md#http-messages`), with `category` fixed to `message`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(receiver, forKey: .receiver)
        try container.encode(receiverType, forKey: .receiverType)
        try container.encode("message", forKey: .category)
        try container.encode(type, forKey: .type)
        try container.encode(muid, forKey: .muid)
        try container.encodeIfPresent(parentId, forKey: .parentId)
        if !tags.isEmpty { try container.encode(tags, forKey: .tags) }
        try container.encode(data, forKey: .data)
    }

    /// The JSON bytes, keys sorted so the same message always encodes the same way.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
