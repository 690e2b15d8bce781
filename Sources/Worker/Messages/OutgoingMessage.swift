import UploadEngine
import WireFormat

/// One media message as the chat API receives it (CometChat REST compatible).
public struct OutgoingMessage: Sendable, Hashable {
    public var muid: String
    public var type: MediaKind
    public var receiver: Receiver
    /// The uid the message is sent on behalf of.
    public var sender: String?
    public var parentId: String?
    public var caption: String?
    /// The job's metadata with `batchId` added.
    public var metadata: [String: JSONValue]
    public var tags: [String]
    public var attachments: [Attachment]
    /// The trace context of the job the message is sent for.
    public var trace: TraceContext?

    public init(muid: String, type: MediaKind, receiver: Receiver, sender: String?, parentId: String?, caption: String?,
                metadata: [String: JSONValue], tags: [String], attachments: [Attachment]) {
        self.muid = muid
        self.type = type
        self.receiver = receiver
        self.sender = sender
        self.parentId = parentId
        self.caption = caption
        self.metadata = metadata
        self.tags = tags
        self.attachments = attachments
    }
}

/// Sends messages: the HTTP message API or the messages topic.
///
/// Implementers send once and throw `MessageSendError`; the worker owns retries (of the send only, never the upload).
public protocol MessageSender: Sendable {
    /// Sends and returns the API's id for the message, if it gave one.
    func send(_ message: OutgoingMessage) async throws -> String?
}

/// Why a send failed, and whether another attempt may succeed.
public struct MessageSendError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var isRetryable: Bool
    public var retryAfter: Duration?

    public init(code: String = "ERR_MESSAGE_SEND_FAILED", _ message: String, retryable: Bool, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = retryable
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(message)" }
}
