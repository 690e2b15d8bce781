/// The successful outcomes of creating a topic: both mean the topic is there now.
public enum TopicCreation: Sendable, Hashable {
    /// The topic was created by this request.
    case created
    /// The topic existed already; for a worker that creates its topics at start this is success.
    case alreadyExists

    /// Maps a per-topic result code from the broker: no error → created, `TOPIC_ALREADY_EXISTS` →
    /// already exists, anything else → the refusal as a ``KafkaError``.
    static func outcome(libraryCode: Int32, message: String?) -> Result<TopicCreation, KafkaError> {
        switch libraryCode {
        case 0: .success(.created)
        case 36: .success(.alreadyExists)  // RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS
        default: .failure(KafkaError(libraryCode: libraryCode, detail: message))
        }
    }
}

/// The outcome of creating one topic of a ``KafkaTopicAdmin/createTopics(_:timeout:)`` request.
public struct TopicCreationResult: Sendable {
    /// The topic name.
    public var topic: String
    /// Created or already there, or the broker's refusal (e.g. `POLICY_VIOLATION`, `INVALID_REPLICATION_FACTOR`).
    public var result: Result<TopicCreation, KafkaError>
}
