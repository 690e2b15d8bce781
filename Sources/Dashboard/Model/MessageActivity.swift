/// One message of a batch, by its muid: sent (with the API's id when it answered one) or failing.
public struct MessageActivity: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        case sent
        /// A send attempt failed and another follows.
        case retrying
        case failed
    }

    public let muid: String
    public var messageType: String?
    public var fileIds: [String]
    public var state: State
    /// The message API's id for it, when it answered one.
    public var responseId: String?
    public var problem: FileActivity.Problem?
    public var attempt = 0
    /// Milliseconds since 1970 of the latest event about it.
    public var time: Int64

    public init(muid: String, messageType: String?, fileIds: [String], state: State, time: Int64) {
        self.muid = muid
        self.messageType = messageType
        self.fileIds = fileIds
        self.state = state
        self.time = time
    }
}
