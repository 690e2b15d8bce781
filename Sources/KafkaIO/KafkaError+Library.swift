import CRdKafka

extension KafkaError {
    /// Wraps a librdkafka response code; `detail` (an errstr from the call) replaces the generic text when given.
    init(_ error: rd_kafka_resp_err_t, detail: String? = nil, isFatal: Bool = false) {
        let name = String(cString: rd_kafka_err2name(error))
        let text = String(cString: rd_kafka_err2str(error))
        self.init(Code(name), detail.map { $0.isEmpty ? text : $0 } ?? text, isFatal: isFatal,
                  isRetryable: Self.retryableCodes.contains(error.rawValue))
        self.libraryCode = error.rawValue
    }

    /// Wraps a librdkafka response code given as its raw number.
    init(libraryCode: Int32, detail: String? = nil) {
        self.init(rd_kafka_resp_err_t(libraryCode), detail: detail)
    }

    /// Takes over an `rd_kafka_error_t` (and destroys it): code, string, fatal and retriable flags.
    static func consuming(_ error: OpaquePointer) -> KafkaError {
        defer { rd_kafka_error_destroy(error) }
        var result = KafkaError(rd_kafka_error_code(error), detail: String(cString: rd_kafka_error_string(error)),
                                isFatal: rd_kafka_error_is_fatal(error) != 0)
        result.isRetryable = result.isRetryable || rd_kafka_error_is_retriable(error) != 0
        return result
    }

    /// The fatal error librdkafka recorded on `client`, if one has been raised.
    static func fatal(on client: OpaquePointer) -> KafkaError? {
        let (code, text) = RDErrorBuffer.with { rd_kafka_fatal_error(client, $0, $1) }
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(code, detail: text, isFatal: true)
    }

    /// Conditions the client recovers from by itself — a broker restarting, leadership or the coordinator moving,
    /// the group rebalancing — which a long-running member sees in bursts and need not act on.
    private static let transientCodes: Set<Int32> = retryableCodes.union([
        RD_KAFKA_RESP_ERR__RESOLVE, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID,
        RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__NO_OFFSET,
        RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH, RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH,
        RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE, RD_KAFKA_RESP_ERR__WAIT_COORD,
    ].map(\.rawValue)).subtracting([RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue])

    /// Whether this is an error librdkafka recovers from on its own (see `transientCodes`): worth a warning, not
    /// an error. A lost message (`_MSG_TIMED_OUT`) is never transient.
    static func isTransient(libraryCode: Int32) -> Bool { transientCodes.contains(libraryCode) }

    /// Transient conditions: the broker or network may recover, so a retry is reasonable.
    private static let retryableCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__QUEUE_FULL,
        RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
        RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
    ].reduce(into: []) { $0.insert($1.rawValue) }
}
