import Foundation

/// A message the API accepted.
public struct MessageDelivery: Sendable, Hashable {
    /// The API's id for the message (`data.id`, as text), when the answer had one.
    public var messageId: String?
    /// The accepting answer's status.
    public var status: Int
    /// The answer's body, for diagnostics.
    public var body: Data

    /// A delivery from its fields.
    public init(messageId: String?, status: Int, body: Data) {
        self.messageId = messageId
        self.status = status
        self.body = body
    }
}
