extension KafkaConfiguration {
    /// The client role a property set is built for; each role has its own defaults.
    enum Role {
        /// A group consumer.
        case consumer
        /// An idempotent producer.
        case producer
        /// A client for Admin API calls only.
        case admin
        /// A consumer outside any group that reads partitions from given offsets (``KafkaPartitionReader``).
        case reader
    }

    /// Settings the consumer's commit protocol relies on; raw properties may not turn them on.
    static let consumerFixedProperties: [String: String] = [
        "enable.auto.commit": "false",
        "enable.auto.offset.store": "false",
    ]

    /// Settings a partition reader relies on: it commits nothing, reports the end of a partition (its stop signal
    /// when the last offsets are gone) and starts over at the log start when the records it asked for are gone.
    static let readerFixedProperties: [String: String] = [
        "enable.auto.commit": "false",
        "enable.auto.offset.store": "false",
        "enable.partition.eof": "true",
        "auto.offset.reset": "earliest",
    ]

    /// The ordered property list for a role: KafkaIO defaults, then the modelled fields, then raw properties,
    /// then the fixed consumer or reader settings.
    func resolvedProperties(for role: Role) throws(KafkaError) -> [(String, String)] {
        var defaults: [(String, String)] = []
        switch role {
        case .consumer:
            guard let groupID, !groupID.isEmpty else {
                throw KafkaError(.invalidConfiguration, "group.id: a consumer needs a group id")
            }
            defaults = [
                ("auto.offset.reset", "earliest"),
                ("partition.assignment.strategy", "cooperative-sticky"),
                ("group.id", groupID),
                // The group's join state comes only with the statistics (see GroupJoinState): often enough that a
                // periodic commit rarely goes out in the first moments of a rejoin it has not heard of yet.
                ("statistics.interval.ms", "100"),
            ]
        case .producer:
            defaults = [
                ("enable.idempotence", "true"),
                ("acks", "all"),
                // The Java client's default, so keyed records land where the backend's own producers put them.
                ("partitioner", "murmur2_random"),
            ]
        case .admin:
            break
        case .reader:
            defaults = [
                // Large fetches, bounded prefetch: several partitions are restored at once, each may hold up to
                // queued.max.messages.kbytes in librdkafka's queue besides the reader's own buffer.
                ("fetch.message.max.bytes", "4194304"),
                ("queued.max.messages.kbytes", "16384"),
                // A read ends at the partition's end, so it never waits for new records; a fetch long-polling there
                // holds the next read's watermark requests back (a broker answers a connection in order): with 100 ms
                // the next read on the mock waited up to 140 ms for its watermarks, with 0 under 1 ms.
                ("fetch.wait.max.ms", "0"),
                ("socket.nagle.disable", "true"),
            ]
        }
        var result = defaults + [("bootstrap.servers", bootstrapServers), ("client.id", clientID)]
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            if role == .consumer, let fixed = Self.consumerFixedProperties[name], value != fixed {
                throw KafkaError(.invalidConfiguration,
                                 "\(name): must be \(fixed); offsets are committed by the consumer's watermark")
            }
            result.append((name, value))
        }
        if role == .consumer {
            result += Self.consumerFixedProperties.sorted(by: { $0.key < $1.key })
        }
        if role == .reader {
            result += Self.readerFixedProperties.sorted(by: { $0.key < $1.key })
        }
        return result
    }

    /// Checks every property against librdkafka for each client role without connecting anywhere.
    ///
    /// - Throws: ``KafkaError/Code/invalidConfiguration`` naming the first refused property.
    public func validate() throws(KafkaError) {
        _ = try RDConfiguration(self, role: .producer)
        _ = try RDConfiguration(self, role: .admin)
        _ = try RDConfiguration(self, role: .reader)
        if groupID != nil {
            _ = try RDConfiguration(self, role: .consumer)
        }
    }
}
