import CRdKafka

/// Creates topics through the Kafka Admin API (`rd_kafka_CreateTopics`) and looks up their partition counts.
///
/// Results arrive on librdkafka's background thread or on a dedicated thread; no thread of the cooperative pool
/// waits for the broker.
public final class KafkaTopicAdmin: Sendable {
    /// The handle; also lent to the metadata lookups (`KafkaTopicAdmin+PartitionCount.swift`).
    let client: RDKafkaClient
    private let backgroundQueue: RDQueue

    /// Creates an admin client; brokers are contacted on the first request.
    public init(configuration: KafkaConfiguration) throws(KafkaError) {
        let conf = try RDConfiguration(configuration, role: .admin)
        conf.installAdminCallbacks()
        let context = RDCallbackContext(logHandler: configuration.logHandler, owner: nil)
        client = try RDKafkaClient(consumer: false, configuration: conf, context: context)
        guard let queue = RDQueue(backgroundOf: client) else {
            throw KafkaError(.clientCreation, "librdkafka has no background queue")
        }
        backgroundQueue = queue
    }

    /// Creates `topics`; a topic that exists already counts as success (``TopicCreation/alreadyExists``).
    ///
    /// - Returns: one result per topic; refusals (policy, replication factor, …) are per-topic failures.
    /// - Throws: ``KafkaError`` when the request as a whole fails, e.g. `_TIMED_OUT` when no controller answers
    ///   within `timeout` or the cluster does not support CreateTopics (librdkafka's mock cluster).
    public func createTopics(_ topics: [NewTopic], timeout: Duration = .seconds(10)) async throws -> [TopicCreationResult] {
        var descriptions: [OpaquePointer?] = []
        var refused: [TopicCreationResult] = []
        defer { descriptions.forEach { rd_kafka_NewTopic_destroy($0) } }
        for topic in topics {
            let (description, text) = RDErrorBuffer.with {
                rd_kafka_NewTopic_new(topic.name, Int32(clamping: topic.partitions),
                                      Int32(clamping: topic.replicationFactor), $0, $1)
            }
            guard let description else {
                refused.append(TopicCreationResult(topic: topic.name,
                                                   result: .failure(KafkaError(.invalidConfiguration, text))))
                continue
            }
            descriptions.append(description)
            for (name, value) in topic.config.sorted(by: { $0.key < $1.key }) {
                _ = rd_kafka_NewTopic_set_config(description, name, value)
            }
        }
        let request = AdminRequest(refusedLocally: refused)
        guard !descriptions.isEmpty else { return refused }
        try client.withClientPointer { handle in
            let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)!
            defer { rd_kafka_AdminOptions_destroy(options) }
            let milliseconds = timeout.clampedMilliseconds
            let (error, text) = RDErrorBuffer.with { buffer, size in
                let request = rd_kafka_AdminOptions_set_request_timeout(options, milliseconds, buffer, size)
                guard request == RD_KAFKA_RESP_ERR_NO_ERROR else { return request }
                return rd_kafka_AdminOptions_set_operation_timeout(options, milliseconds, buffer, size)
            }
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(error, detail: text) }
            rd_kafka_AdminOptions_set_opaque(options, Unmanaged.passRetained(request).toOpaque())
            backgroundQueue.withQueuePointer { queue in
                descriptions.withUnsafeMutableBufferPointer { list in
                    rd_kafka_CreateTopics(handle, list.baseAddress, list.count, options, queue)
                }
            }
        }
        return try await request.promise.value()
    }

    /// Creates one topic; ``TopicCreation/alreadyExists`` is success.
    ///
    /// - Throws: the broker's refusal or the request's failure as a ``KafkaError``.
    public func createTopic(_ topic: NewTopic, timeout: Duration = .seconds(10)) async throws -> TopicCreation {
        let results = try await createTopics([topic], timeout: timeout)
        guard let result = results.first(where: { $0.topic == topic.name }) else {
            throw KafkaError(.unexpectedResponse, "the broker returned no result for topic \(topic.name)")
        }
        return try result.result.get()
    }
}
