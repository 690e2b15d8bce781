import KafkaIO

/// Where the intake sends copies of the records it does not apply where they are: invalid records to the dead-letter
/// topic, misplaced ones back to the jobs topic under their batch's key. A producer of its own in production, a
/// scripted fake in tests.
public protocol RecordForwarder: Sendable {
    /// Produces `record` and returns once it was delivered; throws what the producer or the broker refused.
    func send(_ record: KafkaProducerRecord) async throws -> KafkaDeliveryReport
}

extension KafkaProducer: RecordForwarder {}

/// The forwarding producer's settings: it must accept any record the consumer could fetch, so its
/// `message.max.bytes` is raised to the consumer's `receive.message.max.bytes` (librdkafka's default 100 MB when
/// unset). A record the broker still refuses is then the broker's call, answered per attempt.
enum DeadLetterProducer {
    static func configuration(from kafka: KafkaConfiguration) -> KafkaConfiguration {
        var configuration = kafka
        let fetchable = kafka.properties["receive.message.max.bytes"].flatMap(Int.init) ?? 100_000_000
        // librdkafka's ceiling for message.max.bytes.
        configuration.properties["message.max.bytes"] = String(min(max(fetchable, 1_000_000), 1_000_000_000))
        configuration.clientID = kafka.clientID + "-dlq"
        return configuration
    }
}
