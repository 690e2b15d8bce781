import KafkaIO

/// What the event publisher needs from a Kafka producer: a hand-over that never blocks, with the delivery outcome
/// reported later, and a way to wait for queue room. ``KafkaProducer`` in production, a scripted fake in tests.
public protocol RecordProducer: Sendable {
    /// Hands `record` over without waiting; `onDelivery` runs once with its delivery outcome.
    ///
    /// - Throws: ``KafkaError/Code/queueFull`` when there is no room now (nothing was sent, `onDelivery` never
    ///   runs), or another refusal.
    func produce(_ record: KafkaProducerRecord,
                 onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) throws(KafkaError)

    /// Returns once deliveries may have freed queue room (or the producer closed).
    func waitForQueueSpace() async
}

extension KafkaProducer: RecordProducer {}
