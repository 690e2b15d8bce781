/// A topic to create.
public struct NewTopic: Sendable, Hashable {
    /// The topic name.
    public var name: String
    /// The number of partitions.
    public var partitions: Int
    /// How many brokers hold a copy of each partition.
    public var replicationFactor: Int
    /// Topic-level configuration, e.g. `["retention.ms": "604800000"]`.
    public var config: [String: String]

    /// Describes a topic.
    public init(name: String, partitions: Int, replicationFactor: Int, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}
