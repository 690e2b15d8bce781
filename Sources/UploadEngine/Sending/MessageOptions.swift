import WireFormat
/// How and whether a batch's uploads are sent as messages (a job's `message` object).
public struct MessageOptions: Sendable, Hashable {
    public enum SendMode: String, Sendable, Hashable, CaseIterable {
        /// Send on every drain.
        case auto
        /// Wait for a `send` control.
        case manual
        /// Upload only.
        case none
    }

    public var send: SendMode = .auto
    public var caption: String?
    /// Merged into each message's `data.metadata`, with `batchId` added.
    public var metadata: [String: JSONValue] = [:]
    public var tags: [String] = []

    public init(send: SendMode = .auto, caption: String? = nil, metadata: [String: JSONValue] = [:], tags: [String] = []) {
        self.send = send
        self.caption = caption
        self.metadata = metadata
        self.tags = tags
    }
}
