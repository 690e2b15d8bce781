import CRdKafka

/// Owns one `rd_kafka_queue_t` handle and keeps its client alive while the queue exists.
final class RDQueue: @unchecked Sendable {
    // @unchecked: `pointer` is immutable and librdkafka queues are safe to use from any thread; it is destroyed
    // once, in deinit, before the client it belongs to (which this object keeps alive).
    private let pointer: OpaquePointer
    private let client: RDKafkaClient

    /// The consumer queue of `client` (`rd_kafka_queue_get_consumer`): records, rebalances, commit replies.
    init?(consumerOf client: RDKafkaClient) {
        guard let pointer = client.withClientPointer({ rd_kafka_queue_get_consumer($0) }) else { return nil }
        self.pointer = pointer
        self.client = client
    }

    /// The main queue of `client` (`rd_kafka_queue_get_main`), which `rd_kafka_poll` serves.
    init(mainOf client: RDKafkaClient) {
        self.pointer = client.withClientPointer { rd_kafka_queue_get_main($0) }
        self.client = client
    }

    /// The background queue of `client` (`rd_kafka_queue_get_background`), whose events librdkafka's background
    /// thread hands to the configured event callback; `nil` if no such callback was configured.
    init?(backgroundOf client: RDKafkaClient) {
        guard let pointer = client.withClientPointer({ rd_kafka_queue_get_background($0) }) else { return nil }
        self.pointer = pointer
        self.client = client
    }

    /// A new queue of `client` (`rd_kafka_queue_new`), e.g. for one partition's fetched messages.
    init(newOn client: RDKafkaClient) {
        self.pointer = client.withClientPointer { rd_kafka_queue_new($0) }
        self.client = client
    }

    deinit {
        rd_kafka_queue_destroy(pointer)
    }

    /// Lends the queue for the duration of `body`.
    func withQueuePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(pointer)
    }

    /// Makes a poll blocked on this queue return now (`rd_kafka_queue_yield`); never blocks.
    func wake() {
        rd_kafka_queue_yield(pointer)
    }
}
