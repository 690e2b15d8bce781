/// A configuration as read from the file and the environment, before `validate()`, with the origin of every key
/// that was set (keys not listed kept their defaults).
public struct ResolvedConfiguration: Sendable {
    /// Where a key's effective value came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        case `default`
        case file
        /// The environment variable that set it.
        case environment(String)

        public var description: String {
            switch self {
            case .default: "default"
            case .file: "file"
            case .environment(let name): "environment (\(name))"
            }
        }
    }

    public var configuration = AttacheConfiguration()
    /// By key path; raw librdkafka properties as `kafka.properties.<name>`.
    public var origins: [String: Origin] = [:]

    /// The configuration once it passed every check a worker makes at start.
    public func validated() throws -> AttacheConfiguration {
        try configuration.validate()
        return configuration
    }

    /// The configuration once the settings a Kafka client needs are valid (brokers, topic names): what the
    /// commands that only produce or read records require — they have no use for presign or message settings.
    public func validatedForKafkaClient() throws -> AttacheConfiguration {
        try configuration.validateKafka()
        return configuration
    }
}
