import KafkaIO

extension AttacheConfiguration {
    /// The client settings for the configured cluster (`kafka.brokers`, `kafka.groupId`, `kafka.properties`): the
    /// worker's clients and the command line's are configured alike.
    public func kafkaConfiguration(clientID: String, logHandler: (@Sendable (KafkaLogMessage) -> Void)? = nil) -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: kafka.brokers, groupID: kafka.groupId, clientID: clientID,
                           properties: kafka.properties, logHandler: logHandler)
    }
}
