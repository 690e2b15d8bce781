/// How to reach and identify with a Kafka cluster, plus raw librdkafka properties passed through unchanged.
///
/// The raw `properties` are the escape hatch for everything KafkaIO does not model (SASL, TLS, timeouts,
/// batching): they are applied after KafkaIO's defaults and so override them, except for the two settings the
/// consumer's commit protocol depends on (`enable.auto.commit`, `enable.auto.offset.store`), which are refused
/// if set to anything but `false`, and the settings a ``KafkaPartitionReader`` relies on, which its handle always
/// gets (no commits, `enable.partition.eof=true`, `auto.offset.reset=earliest`).
public struct KafkaConfiguration: Sendable {
    /// Comma-separated `host:port` list (`bootstrap.servers`).
    public var bootstrapServers: String
    /// The consumer group (`group.id`); required by ``KafkaConsumer``, ignored by producers and admin clients.
    public var groupID: String?
    /// The client id reported to brokers (`client.id`).
    public var clientID: String
    /// Raw librdkafka properties, e.g. `["security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN"]`.
    public var properties: [String: String]
    /// Receives librdkafka's log lines; when `nil` librdkafka prints them to standard error.
    ///
    /// Called on librdkafka's internal threads: the handler must be quick and must not block.
    public var logHandler: (@Sendable (KafkaLogMessage) -> Void)?

    /// Makes a configuration; only the bootstrap servers are required.
    public init(bootstrapServers: String, groupID: String? = nil, clientID: String = "attache",
                properties: [String: String] = [:], logHandler: (@Sendable (KafkaLogMessage) -> Void)? = nil) {
        self.bootstrapServers = bootstrapServers
        self.groupID = groupID
        self.clientID = clientID
        self.properties = properties
        self.logHandler = logHandler
    }
}
