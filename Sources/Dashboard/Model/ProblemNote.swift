/// A failure or rejection for the errors panel: which batch, file or message, which code, what it said, and when.
public struct ProblemNote: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// `file.rejected`.
        case rejected
        /// `file.failed` (`willRetry` tells whether another attempt follows).
        case failed
        /// `message.failed`.
        case message
    }

    public var kind: Kind
    public var time: Int64
    public var batchId: String
    /// The file id, or the muid for a message.
    public var subject: String
    public var code: String
    public var message: String
    public var willRetry: Bool
    public var source: String?

    public init(kind: Kind, time: Int64, batchId: String, subject: String, code: String, message: String, willRetry: Bool,
                source: String?) {
        self.kind = kind
        self.time = time
        self.batchId = batchId
        self.subject = subject
        self.code = code
        self.message = message
        self.willRetry = willRetry
        self.source = source
    }
}
