import CRdKafka

/// Owns one `rd_kafka_conf_t` until a client handle takes it over.
///
/// Not `Sendable`: it is built and consumed on one thread during client creation.
final class RDConfiguration {
    private var pointer: OpaquePointer?

    /// Builds a librdkafka configuration for `role`, failing with the name of the first refused property.
    init(_ configuration: KafkaConfiguration, role: KafkaConfiguration.Role) throws(KafkaError) {
        let conf = rd_kafka_conf_new()!
        pointer = conf
        for (name, value) in try configuration.resolvedProperties(for: role) {
            try set(name, value)
        }
    }

    deinit {
        if let pointer { rd_kafka_conf_destroy(pointer) }
    }

    /// Sets one property; the error names the property and carries librdkafka's explanation.
    func set(_ name: String, _ value: String) throws(KafkaError) {
        guard let pointer else { preconditionFailure("configuration already handed to a client") }
        let (result, text) = RDErrorBuffer.with { rd_kafka_conf_set(pointer, name, value, $0, $1) }
        guard result == RD_KAFKA_CONF_OK else {
            throw KafkaError(.invalidConfiguration, "\(name): \(text)")
        }
    }

    /// Lends the pointer for setting callbacks and the opaque while this object still owns it.
    func withConfigurationPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        guard let pointer else { preconditionFailure("configuration already handed to a client") }
        return try body(pointer)
    }

    /// Gives up ownership: `rd_kafka_new` takes the configuration when it succeeds.
    func relinquish() {
        pointer = nil
    }
}
