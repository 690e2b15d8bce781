import CRdKafka

/// One fault for a ``MockKafkaCluster``, read from a line of text: what `attache dev-broker --faults` takes on
/// standard input, so a process outside the cluster (a soak, a script) can make Kafka misbehave on a schedule.
///
/// The grammar, one command a line, words separated by blanks:
///
///     down B | up B | rtt B MS | leader TOPIC PARTITION B | coordinator GROUP B
///     errors API CODE[,CODE…] | clear API | topic NAME PARTITIONS [REPLICATION]
///
/// `B` is a broker id (from 1 to the cluster's broker count), `API` one of ``apiNames`` and `CODE` a Kafka protocol
/// error number or one of ``errorNames``. Parsing is pure; ``MockKafkaCluster/apply(_:)`` carries the fault out.
public enum MockClusterFault: Equatable, Sendable {
    case brokerDown(Int32)
    case brokerUp(Int32)
    case roundTripTime(broker: Int32, milliseconds: Int)
    case partitionLeader(topic: String, partition: Int32, broker: Int32)
    case groupCoordinator(group: String, broker: Int32)
    case requestErrors(MockKafkaCluster.API, [MockKafkaCluster.ProtocolError])
    case clearRequestErrors(MockKafkaCluster.API)
    /// Creates a topic with a chosen partition count (the mock has no CreateTopics API; on first use it makes 4).
    case createTopic(name: String, partitions: Int32, replicationFactor: Int32)

    /// Why a line is not a fault command; `description` is what dev-broker answers after `error: `.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The API names the grammar knows, lower case.
    public static let apiNames: [String: MockKafkaCluster.API] = [
        "produce": .produce, "fetch": .fetch, "offsetcommit": .offsetCommit, "heartbeat": .heartbeat,
        "metadata": .metadata, "joingroup": .joinGroup, "syncgroup": .syncGroup, "findcoordinator": .findCoordinator,
    ]

    /// The protocol error names the grammar knows, as Kafka spells them.
    public static let errorNames: [String: MockKafkaCluster.ProtocolError] = [
        "UNKNOWN_TOPIC_OR_PARTITION": .unknownTopicOrPartition, "LEADER_NOT_AVAILABLE": .leaderNotAvailable,
        "NOT_LEADER_FOR_PARTITION": .notLeaderForPartition, "REQUEST_TIMED_OUT": .requestTimedOut,
        "MESSAGE_TOO_LARGE": .messageTooLarge,
        "COORDINATOR_LOAD_IN_PROGRESS": .coordinatorLoadInProgress, "COORDINATOR_NOT_AVAILABLE": .coordinatorNotAvailable,
        "NOT_COORDINATOR": .notCoordinator, "NOT_ENOUGH_REPLICAS": .notEnoughReplicas,
        "ILLEGAL_GENERATION": .illegalGeneration, "UNKNOWN_MEMBER_ID": .unknownMemberId,
        "REBALANCE_IN_PROGRESS": .rebalanceInProgress, "TOPIC_AUTHORIZATION_FAILED": .topicAuthorizationFailed,
        "KAFKA_STORAGE_ERROR": .kafkaStorageError,
    ]

    /// Reads one command for a cluster of `brokers` brokers.
    public static func parse(_ line: String, brokers: Int32) throws(ParseError) -> MockClusterFault {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first else { throw ParseError("empty command") }
        let arguments = Array(words.dropFirst())

        func expect(_ count: Int, _ form: String) throws(ParseError) {
            guard arguments.count == count else { throw ParseError("usage: \(form)") }
        }
        func broker(_ word: String) throws(ParseError) -> Int32 {
            guard let id = Int32(word), (1...brokers).contains(id) else {
                throw ParseError("no broker '\(word)': brokers are 1 to \(brokers)")
            }
            return id
        }
        func api(_ word: String) throws(ParseError) -> MockKafkaCluster.API {
            guard let api = apiNames[word.lowercased()] else {
                throw ParseError("unknown API '\(word)' (one of \(apiNames.keys.sorted().joined(separator: ", ")))")
            }
            return api
        }

        switch verb.lowercased() {
        case "down":
            try expect(1, "down BROKER")
            return .brokerDown(try broker(arguments[0]))
        case "up":
            try expect(1, "up BROKER")
            return .brokerUp(try broker(arguments[0]))
        case "rtt":
            try expect(2, "rtt BROKER MILLISECONDS")
            guard let milliseconds = Int(arguments[1]), (0...600_000).contains(milliseconds) else {
                throw ParseError("round-trip time '\(arguments[1])' is not 0 to 600000 ms")
            }
            return .roundTripTime(broker: try broker(arguments[0]), milliseconds: milliseconds)
        case "leader":
            try expect(3, "leader TOPIC PARTITION BROKER")
            guard let partition = Int32(arguments[1]), partition >= 0 else {
                throw ParseError("partition '\(arguments[1])' is not a number from 0")
            }
            return .partitionLeader(topic: arguments[0], partition: partition, broker: try broker(arguments[2]))
        case "coordinator":
            try expect(2, "coordinator GROUP BROKER")
            return .groupCoordinator(group: arguments[0], broker: try broker(arguments[1]))
        case "errors":
            try expect(2, "errors API CODE[,CODE…]")
            let target = try api(arguments[0])
            var codes: [MockKafkaCluster.ProtocolError] = []
            for word in arguments[1].split(separator: ",", omittingEmptySubsequences: false) {
                if let number = Int16(word) {
                    codes.append(MockKafkaCluster.ProtocolError(rawValue: Int32(number)))
                } else if let named = errorNames[word.uppercased()] {
                    codes.append(named)
                } else {
                    throw ParseError("unknown error code '\(word)' (a protocol number or one of "
                        + "\(errorNames.keys.sorted().joined(separator: ", ")))")
                }
            }
            return .requestErrors(target, codes)
        case "clear":
            try expect(1, "clear API")
            return .clearRequestErrors(try api(arguments[0]))
        case "topic":
            guard (2...3).contains(arguments.count) else { throw ParseError("usage: topic NAME PARTITIONS [REPLICATION]") }
            guard let partitions = Int32(arguments[1]), (1...10_000).contains(partitions) else {
                throw ParseError("partition count '\(arguments[1])' is not 1 to 10000")
            }
            let replication = arguments.count == 3 ? try broker(arguments[2]) : 1
            return .createTopic(name: arguments[0], partitions: partitions, replicationFactor: replication)
        default:
            throw ParseError("unknown command '\(verb)' (down, up, rtt, leader, coordinator, errors, clear, topic)")
        }
    }
}

extension MockKafkaCluster {
    /// Carries out a parsed fault command through the fault API.
    public func apply(_ fault: MockClusterFault) {
        switch fault {
        case .brokerDown(let broker): setBrokerDown(broker)
        case .brokerUp(let broker): setBrokerUp(broker)
        case .roundTripTime(let broker, let milliseconds): setRoundTripTime(broker, milliseconds: milliseconds)
        case .partitionLeader(let topic, let partition, let broker):
            setPartitionLeader(topic: topic, partition: partition, broker: broker)
        case .groupCoordinator(let group, let broker): setGroupCoordinator(group: group, broker: broker)
        case .requestErrors(let api, let errors): pushRequestErrors(api, errors)
        case .clearRequestErrors(let api): clearRequestErrors(api)
        case .createTopic(let name, let partitions, let replicationFactor):
            _ = cluster.withClusterPointer { rd_kafka_mock_topic_create($0, name, partitions, replicationFactor) }
        }
    }
}
