import CRdKafka

/// One CreateTopics request in flight; travels to librdkafka as the admin options opaque (retained) and comes
/// back with the result event on librdkafka's background thread.
final class AdminRequest: Sendable {
    /// Fulfilled from the background thread with the per-topic results.
    let promise = CompletionPromise<[TopicCreationResult]>()
    /// Per-topic failures found before sending (librdkafka refused the topic description).
    let refusedLocally: [TopicCreationResult]

    /// A request whose locally refused topics are reported along with the broker's answers.
    init(refusedLocally: [TopicCreationResult]) {
        self.refusedLocally = refusedLocally
    }
}

extension RDConfiguration {
    /// Routes admin result events to ``adminEventCallback`` on librdkafka's background thread.
    func installAdminCallbacks() {
        withConfigurationPointer { rd_kafka_conf_set_background_event_cb($0, adminEventCallback) }
    }
}

/// Background-queue events; runs on librdkafka's background thread and must destroy the event.
private func adminEventCallback(client: OpaquePointer?, event: OpaquePointer?, opaque: UnsafeMutableRawPointer?) {
    guard let event else { return }
    defer { rd_kafka_event_destroy(event) }
    guard rd_kafka_event_type(event) == RD_KAFKA_EVENT_CREATETOPICS_RESULT,
          let token = rd_kafka_event_opaque(event) else { return }
    let request = Unmanaged<AdminRequest>.fromOpaque(token).takeRetainedValue()
    let error = rd_kafka_event_error(event)
    guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
        request.promise.fulfill(.failure(KafkaError(error, detail: rd_kafka_event_error_string(event).map {
            String(cString: $0)
        })))
        return
    }
    var results = request.refusedLocally
    var count = 0
    if let answer = rd_kafka_event_CreateTopics_result(event),
       let topics = rd_kafka_CreateTopics_result_topics(answer, &count) {
        for index in 0..<count {
            guard let topic = topics[index] else { continue }
            let message = rd_kafka_topic_result_error_string(topic).map { String(cString: $0) }
            results.append(TopicCreationResult(
                topic: String(cString: rd_kafka_topic_result_name(topic)),
                result: TopicCreation.outcome(libraryCode: rd_kafka_topic_result_error(topic).rawValue, message: message)))
        }
    }
    request.promise.fulfill(.success(results))
}
