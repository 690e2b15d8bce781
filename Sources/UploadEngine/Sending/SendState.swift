/// A batch's messages as part of its state: what went out, whether the caption did, and the send under way. It is
/// durable state: a snapshot carries it, so a new owner neither sends a message twice nor forgets a requested send.
struct SendState: Sendable {
    var options: MessageOptions
    /// Every message sent, in the order it went out; files removed since are dropped from it.
    var sent: [SentMessage] = []
    /// The files of `sent`, for planning.
    var sentFileIds: Set<String> = []
    var captionSent = false
    /// A send is due: a drain in auto mode, or a `send` control. It starts once no run is under way.
    var requested = false
    /// The run under way: a plan sent message by message, in plan order.
    var run: SendRun?
    /// Bumped for every message attempt and by `clear`: an outcome of an older attempt is dropped.
    var generation = 0
    /// The request whose drain asked for the send; message events carry it.
    var requestId = ""
}

/// One message that went out.
public struct SentMessage: Sendable, Hashable {
    public var muid: String
    public var fileIds: [String]
    public init(muid: String, fileIds: [String]) {
        self.muid = muid
        self.fileIds = fileIds
    }
}

/// A send under way.
struct SendRun: Sendable {
    var plan: [PlannedMessage]
    /// The plan's message being sent or waiting for its retry.
    var next = 0
    var attempt = 1
    /// Set while the message waits for its automatic retry; nil while its attempt is under way.
    var notBefore: Date?
    /// The plan was just made and waits to be recorded (§4.1 *Sends*): no message of it is posted before a
    /// snapshot carrying it is in the changelog, so a next owner posts the same muids with the same files.
    var awaitingRecord = false

    var current: PlannedMessage { plan[next] }
}

/// Identifies one attempt at sending one message of a batch.
public struct SendToken: Sendable, Hashable, CustomStringConvertible {
    public let generation: Int
    public var description: String { "send.\(generation)" }
}

/// Posts a batch's media messages: the chat API or a messages topic.
///
/// Implementers post once and throw `UploadError` (`retryable` and `retryAfter` as the API answered); the batch
/// owns the retries, which repeat the post only, never an upload.
public protocol MessagePoster: Sendable {
    /// Posts `message` for the batch and returns the API's id for it, if it gave one.
    func post(_ message: PlannedMessage, context: BatchContext, options: MessageOptions) async throws -> String?
}

import Foundation
