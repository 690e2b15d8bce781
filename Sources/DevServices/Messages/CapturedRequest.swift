import Foundation

/// One request the message capture received, whatever became of it.
public struct CapturedRequest: Sendable, Hashable {
    /// The `apikey` header.
    public var apiKey: String?
    /// The `onBehalfOf` header.
    public var onBehalfOf: String?
    /// The `traceparent` header.
    public var traceparent: String? = nil
    /// The raw body.
    public var body: Data
    /// The decoded message; nil when the body was not a valid message.
    public var message: CapturedMessage?
    /// What the capture answered.
    public var outcome: Outcome

    /// What the capture did with a request.
    public enum Outcome: Sendable, Hashable {
        /// A new message, given this id (200).
        case accepted(id: String)
        /// A repeated `muid`: answered 200 with the original message's id.
        case duplicate(id: String)
        /// The api key was missing or wrong (401).
        case unauthorized
        /// The body was not a valid message (400), for this reason.
        case malformed(String)
    }

    /// The message id answered, for accepted and duplicate requests.
    public var id: String? {
        switch outcome {
        case .accepted(let id), .duplicate(let id): id
        case .unauthorized, .malformed: nil
        }
    }
}
