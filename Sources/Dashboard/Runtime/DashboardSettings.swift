import UploadEngine

/// What one dashboard is set up with: the worker's `dashboard.*`, topics and limits, resolved by the command that
/// starts it (the configuration's loader is the worker's, not the dashboard's).
public struct DashboardSettings: Sendable, Hashable {
    public var host: String
    public var port: UInt16
    public var topics: FeedTopics
    /// The limits job records are decoded within, the same as the workers'.
    public var limits: UploadLimits
    /// Batches the dashboard keeps; beyond it the one whose last event is oldest is forgotten.
    public var maxBatches: Int
    /// Live event streams served at once.
    public var maxClients: Int
    /// Host names a proxy in front of the dashboard forwards, besides its listen address and loopback.
    public var allowedHosts: [String]
    /// The token every request must carry; empty: none.
    public var token: String

    public init(host: String, port: UInt16, topics: FeedTopics, limits: UploadLimits, maxBatches: Int, maxClients: Int,
                allowedHosts: [String], token: String) {
        self.host = host
        self.port = port
        self.topics = topics
        self.limits = limits
        self.maxBatches = maxBatches
        self.maxClients = maxClients
        self.allowedHosts = allowedHosts
        self.token = token
    }
}
