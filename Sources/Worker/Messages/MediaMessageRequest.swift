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
public struct MediaMessageRequest: Sendable, Hashable {
    /// One attachment as the message carries it.
    public struct AttachmentReference: Sendable, Hashable {
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
    public struct Payload: Sendable, Hashable {
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

    /// The JSON bytes of the documented message shape (`docs/wire-format.md#http-messages`), with `category` fixed to
    /// `message`, keys sorted so the same message always encodes the same way.
    public func encoded() -> Data {
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.field("category", "message")
        json.key("data")
        json.beginObject()
        json.key("attachments")
        json.beginArray()
        for attachment in data.attachments {
            json.beginObject()
            json.field("extension", attachment.extension)
            json.field("mimeType", attachment.mimeType)
            json.field("name", attachment.name)
            json.field("size", attachment.size)
            json.field("url", attachment.url)
            json.endObject()
        }
        json.endArray()
        json.key("metadata")
        json.value(.object(data.metadata))
        if let text = data.text { json.field("text", text) }
        json.endObject()
        json.field("muid", muid)
        if let parentId { json.field("parentId", parentId) }
        json.field("receiver", receiver)
        json.field("receiverType", receiverType.rawValue)
        if !tags.isEmpty {
            json.key("tags")
            json.value(.array(tags.map(JSONValue.string)))
        }
        json.field("type", type.rawValue)
        json.endObject()
        return json.data()
    }
}
