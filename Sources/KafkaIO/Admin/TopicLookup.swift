/// What one metadata answer says about one topic; pure, so the rules are testable without a broker.
enum TopicLookup: Equatable {
    /// The topic exists with this many partitions.
    case partitions(Int)
    /// The broker does not know the topic.
    case missing
    /// The topic is being created (no leader or no partitions yet): ask again shortly.
    case pending
    /// The broker refused to describe the topic (e.g. `TOPIC_AUTHORIZATION_FAILED`).
    case failed(KafkaError)

    /// Classifies one topic of a metadata answer: whether the answer listed it, the topic's error code and how many
    /// partitions it listed.
    static func classify(listed: Bool, libraryCode: Int32, partitionCount: Int) -> TopicLookup {
        guard listed else { return .missing }
        switch libraryCode {
        case 0, 5:  // NO_ERROR, LEADER_NOT_AVAILABLE (an auto-created topic's first answer on a real broker)
            return partitionCount > 0 ? .partitions(partitionCount) : .pending
        case 3:  // UNKNOWN_TOPIC_OR_PART
            return .missing
        default:
            return .failed(KafkaError(libraryCode: libraryCode))
        }
    }
}
