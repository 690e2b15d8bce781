import CRdKafka

/// Owns one `rd_kafka_topic_t` handle and keeps its client alive while the topic handle exists.
///
/// Not `Sendable`: made, used and released on the one thread that reads a partition.
final class RDTopic {
    private let pointer: OpaquePointer
    private let client: RDKafkaClient

    /// The topic handle for `name` on `client`, or the error librdkafka refused it with.
    init(_ name: String, on client: RDKafkaClient) throws(KafkaError) {
        guard let pointer = client.withClientPointer({ rd_kafka_topic_new($0, name, nil) }) else {
            throw KafkaError(rd_kafka_last_error(), detail: "topic \(name)")
        }
        self.pointer = pointer
        self.client = client
    }

    deinit {
        rd_kafka_topic_destroy(pointer)
    }

    /// Lends the topic handle for the duration of `body`.
    func withTopicPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(pointer)
    }
}
