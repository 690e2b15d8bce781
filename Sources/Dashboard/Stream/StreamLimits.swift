/// The bounds on the dashboard's event streams (DESIGN §10): how many browsers are served at once, how far one may
/// fall behind before it is cut off, and how often a delta goes out. With them the memory the streams hold has a
/// bound whatever the clients do.
public struct StreamLimits: Sendable, Hashable {
    /// Streams open at once (`dashboard.maxClients`); the next one is answered 503.
    public var maxClients: Int
    /// Bytes of deltas a stream may have waiting behind the newest one; a stream further behind is disconnected (its
    /// page reconnects and starts over from a snapshot).
    public var maxBacklog: Int
    /// The least time between two deltas: the changes made meanwhile go out together.
    public var interval: Duration

    /// The contract's bounds unless told otherwise: 64 streams, 4 MiB behind, four deltas a second.
    public init(maxClients: Int = 64, maxBacklog: Int = 4 << 20, interval: Duration = .milliseconds(250)) {
        self.maxClients = max(1, maxClients)
        self.maxBacklog = max(0, maxBacklog)
        self.interval = interval
    }
}
