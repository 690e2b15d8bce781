import Foundation

/// A message the API accepted.
public struct MessageDelivery: Sendable, Hashable {
    /// The API's id for the message (`data.id`, as text), when the answer had one.
    public var messageId: String?
    /// How many sends it took, the successful one included.
    public var attempts: Int
    /// The accepting answer's status.
    public var status: Int
    /// The answer's body, for diagnostics.
    public var body: Data

    /// A delivery from its fields.
    public init(messageId: String?, attempts: Int, status: Int, body: Data) {
        self.messageId = messageId
        self.attempts = attempts
        self.status = status
        self.body = body
    }
}

/// One failed send, reported as it happens so the caller can publish `attache.message.failed` per attempt.
public struct MessageSendFailure: Sendable, Hashable {
    /// Why this attempt failed.
    public var error: HTTPTransportError
    /// 1-based.
    public var attempt: Int
    /// Whether another send follows (after a backoff).
    public var willRetry: Bool

    /// A failure report from its fields.
    public init(error: HTTPTransportError, attempt: Int, willRetry: Bool) {
        self.error = error
        self.attempt = attempt
        self.willRetry = willRetry
    }
}
