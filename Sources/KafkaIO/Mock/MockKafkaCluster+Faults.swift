import CRdKafka

/// The mock cluster's fault API, for tests that need a misbehaving Kafka: request errors per API, brokers going
/// down and coming back, leaders and the group coordinator moving, slow round trips.
///
/// Every call is a command to the cluster's own thread and returns at once; brokers are numbered from 1.
extension MockKafkaCluster {
    /// A Kafka protocol API, by its request key.
    public struct API: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        public static let produce = API(rawValue: 0)
        public static let fetch = API(rawValue: 1)
        public static let listOffsets = API(rawValue: 2)
        public static let metadata = API(rawValue: 3)
        public static let offsetCommit = API(rawValue: 8)
        public static let offsetFetch = API(rawValue: 9)
        public static let findCoordinator = API(rawValue: 10)
        public static let joinGroup = API(rawValue: 11)
        public static let heartbeat = API(rawValue: 12)
        public static let syncGroup = API(rawValue: 14)
        public static let initProducerId = API(rawValue: 22)
    }

    /// An error a broker answers with, by its Kafka protocol number.
    public struct ProtocolError: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unknownTopicOrPartition = ProtocolError(rawValue: 3)
        public static let leaderNotAvailable = ProtocolError(rawValue: 5)
        public static let notLeaderForPartition = ProtocolError(rawValue: 6)
        public static let requestTimedOut = ProtocolError(rawValue: 7)
        /// `MESSAGE_TOO_LARGE`: a produce the broker will never take, however often it is retried.
        public static let messageTooLarge = ProtocolError(rawValue: 10)
        public static let coordinatorLoadInProgress = ProtocolError(rawValue: 14)
        public static let coordinatorNotAvailable = ProtocolError(rawValue: 15)
        public static let notCoordinator = ProtocolError(rawValue: 16)
        public static let notEnoughReplicas = ProtocolError(rawValue: 19)
        public static let illegalGeneration = ProtocolError(rawValue: 22)
        public static let unknownMemberId = ProtocolError(rawValue: 25)
        public static let rebalanceInProgress = ProtocolError(rawValue: 27)
        public static let topicAuthorizationFailed = ProtocolError(rawValue: 29)
        public static let kafkaStorageError = ProtocolError(rawValue: 56)
    }

    /// The next requests of `api`, on any broker, are answered with `errors`, one each, in order.
    public func pushRequestErrors(_ api: API, _ errors: [ProtocolError]) {
        let codes = errors.map { rd_kafka_resp_err_t($0.rawValue) }
        codes.withUnsafeBufferPointer { buffer in
            withClusterPointer { rd_kafka_mock_push_request_errors_array($0, api.rawValue, buffer.count, buffer.baseAddress) }
        }
    }

    /// The next requests of `api` that broker `broker` receives are answered with `errors`, one each, in order; the
    /// other brokers answer as usual. A broker's errors come before the cluster's (``pushRequestErrors(_:_:)``). With
    /// the leaders of one topic's partitions moved to that broker, the errors reach only the clients of that topic.
    public func pushRequestErrors(_ api: API, _ errors: [ProtocolError], onBroker broker: Int32) {
        withClusterPointer { cluster in
            for error in errors {
                _ = attache_rd_kafka_mock_broker_push_request_error(cluster, broker, api.rawValue,
                                                                    rd_kafka_resp_err_t(error.rawValue), 0)
            }
        }
    }

    /// Forgets the errors still queued for `api`.
    public func clearRequestErrors(_ api: API) {
        withClusterPointer { rd_kafka_mock_clear_request_errors($0, api.rawValue) }
    }

    /// Disconnects a broker and refuses new connections; its partitions keep it as leader until they are moved.
    public func setBrokerDown(_ broker: Int32) {
        withClusterPointer { _ = rd_kafka_mock_broker_set_down($0, broker) }
    }

    /// Lets a broker accept connections again.
    public func setBrokerUp(_ broker: Int32) {
        withClusterPointer { _ = rd_kafka_mock_broker_set_up($0, broker) }
    }

    /// Delays every answer of a broker by `milliseconds`.
    public func setRoundTripTime(_ broker: Int32, milliseconds: Int) {
        withClusterPointer { _ = rd_kafka_mock_broker_set_rtt($0, broker, Int32(clamping: milliseconds)) }
    }

    /// Makes the cluster answer every request about `topic` with `error` (as if it were forbidden or broken);
    /// `nil` clears it.
    public func setTopicError(_ topic: String, _ error: ProtocolError?) {
        withClusterPointer { rd_kafka_mock_topic_set_error($0, topic, rd_kafka_resp_err_t(error?.rawValue ?? 0)) }
    }

    /// Moves a partition's leadership to `broker`.
    public func setPartitionLeader(topic: String, partition: Int32, broker: Int32) {
        withClusterPointer { _ = rd_kafka_mock_partition_set_leader($0, topic, partition, broker) }
    }

    /// Moves a consumer group's coordinator to `broker`.
    public func setGroupCoordinator(group: String, broker: Int32) {
        withClusterPointer { _ = rd_kafka_mock_coordinator_set($0, "group", group, broker) }
    }

    private func withClusterPointer<T>(_ body: (OpaquePointer) -> T) -> T {
        cluster.withClusterPointer(body)
    }
}
