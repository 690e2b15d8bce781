/// Where one record's delivery report goes. Travels through librdkafka as the message opaque: retained by the
/// produce call, released exactly once by the delivery-report callback.
///
/// A record produced with a callback carries the callback itself, with no promise between; the topic is kept
/// here so the report does not copy librdkafka's topic name back into a new string for every record.
final class DeliveryHandler: Sendable {
    /// The record's topic, for the report.
    let topic: String
    /// Called once, on the producer's poll thread, with the report.
    let deliver: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void

    init(topic: String, deliver: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) {
        self.topic = topic
        self.deliver = deliver
    }
}
