/// What asking the hub for a new event stream gave.
public enum StreamOpening: Sendable, Hashable {
    /// The stream's id and its first message's JSON: the whole model as it is now.
    case opened(id: Int, snapshot: [UInt8])
    /// `limit` streams are open already (`dashboard.maxClients`).
    case full(limit: Int)
    /// The hub closed: the dashboard is stopping.
    case closed
}
