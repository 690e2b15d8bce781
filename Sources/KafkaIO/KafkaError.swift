/// The one error type of KafkaIO: a stable code, a human message and where it came from.
///
/// Codes that come from librdkafka are its own error names (`rd_kafka_err2name`), e.g. `_TIMED_OUT`,
/// `TOPIC_ALREADY_EXISTS`, `_QUEUE_FULL`; the message is `rd_kafka_err2str` or the library's error string.
/// Codes that KafkaIO raises itself are the static members of ``Code``.
public struct KafkaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code string, safe to log and to match on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code string.
        public let rawValue: String
        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Wraps a code string.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// A configuration property was refused by librdkafka; the message names the property.
        public static let invalidConfiguration = Code("INVALID_CONFIGURATION")
        /// librdkafka refused to create a client handle.
        public static let clientCreation = Code("CLIENT_CREATION_FAILED")
        /// The consumer or producer was closed before the operation could run.
        public static let closed = Code("CLIENT_CLOSED")
        /// The mock cluster could not be started.
        public static let mockCluster = Code("MOCK_CLUSTER_FAILED")
        /// The revoke hook did not return within ``KafkaConsumerOptions/revokeTimeout``; the partitions were
        /// committed and released anyway.
        public static let revokeTimedOut = Code("REVOKE_HOOK_TIMED_OUT")
        /// A broker or librdkafka answered without what was asked for.
        public static let unexpectedResponse = Code("UNEXPECTED_RESPONSE")
        /// librdkafka's local timeout (`RD_KAFKA_RESP_ERR__TIMED_OUT`).
        public static let timedOut = Code("_TIMED_OUT")
        /// librdkafka's local queue is full (`RD_KAFKA_RESP_ERR__QUEUE_FULL`): wait for deliveries, then try again.
        public static let queueFull = Code("_QUEUE_FULL")
        /// A topic already exists (`RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS`).
        public static let topicAlreadyExists = Code("TOPIC_ALREADY_EXISTS")
        /// A commit was not sent because the member is rejoining its group (see ``GroupJoinState``): it would carry
        /// the old generation. The positions stay for the next commit, or for the partitions' next owner.
        public static let groupRejoining = Code("GROUP_REJOINING")
    }

    /// The stable code.
    public var code: Code
    /// What went wrong, for people; for librdkafka errors the text of `rd_kafka_err2str` or its error string.
    public var message: String
    /// The librdkafka error number (`rd_kafka_resp_err_t`), when the error came from librdkafka.
    public var libraryCode: Int32?
    /// Whether the client is unusable after this error and the process should stop (librdkafka fatal error).
    public var isFatal: Bool
    /// Whether repeating the operation may succeed.
    public var isRetryable: Bool

    /// Makes an error with a code of KafkaIO's own.
    public init(_ code: Code, _ message: String, isFatal: Bool = false, isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.libraryCode = nil
        self.isFatal = isFatal
        self.isRetryable = isRetryable
    }

    /// Whether the client recovers from this by itself (a broker restarting, leaders or the coordinator moving, a
    /// rebalance): a member sees such errors in bursts and should note them, not alarm anyone. Fatal errors and
    /// KafkaIO's own codes (but a revoke that ran out of time) are never transient.
    public var isTransient: Bool {
        guard !isFatal else { return false }
        guard let libraryCode else { return code == .revokeTimedOut }
        return Self.isTransient(libraryCode: libraryCode)
    }

    /// `CODE: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
