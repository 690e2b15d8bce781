import CRdKafka
import Foundation

extension RDConfiguration {
    /// Installs the consumer's rebalance and error callbacks; both run on the consumer's poll thread.
    func installConsumerCallbacks() {
        withConfigurationPointer { conf in
            rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
            rd_kafka_conf_set_error_cb(conf, consumerErrorCallback)
            rd_kafka_conf_set_stats_cb(conf, consumerStatsCallback)
        }
    }
}

extension ConsumerShared {
    /// Sends `positions` with `rd_kafka_commit_queue`; the reply comes back through the consumer queue and so
    /// on the poll thread. Runs on the poll thread.
    func commitAsynchronously(_ positions: [(TopicPartition, Int64)], client: OpaquePointer, queue: OpaquePointer,
                              waiter: CompletionPromise<Void>?) {
        let request = CommitRequest(positions: positions, shared: self, waiter: waiter)
        let opaque = Unmanaged.passRetained(request).toOpaque()
        let list = RDTopicPartitionList(positions.map { ($0.0, $0.1) })
        let error = list.withListPointer { rd_kafka_commit_queue(client, $0, queue, commitCallback, opaque) }
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            // Refused before it was queued, so the callback will never run.
            Unmanaged<CommitRequest>.fromOpaque(opaque).release()
            request.complete(KafkaError(error))
        }
    }
}

extension ConsumerShared {
    /// Commits every position of `partitions` (`nil`: all owned) the broker has not confirmed — including ones
    /// whose asynchronous commit is still in flight or failed — and waits for the answer, trying a retryable
    /// refusal (coordinator moving, request timed out) up to three times, waiting by ``CommitBackoff``. For the
    /// rebalance callback and closing, where partitions must not be released before their watermarks are stored.
    /// Runs on the poll thread, which is why it sleeps rather than suspends.
    func commitBeforeRelease(_ partitions: Set<TopicPartition>?, client: OpaquePointer) -> KafkaError? {
        var failure: KafkaError?
        for attempt in 1...3 {
            let positions = state.withLock { $0.ledger.takeCommitPositions(of: partitions, .unconfirmed) }
            guard !positions.isEmpty else { return nil }
            failure = commitSynchronously(positions, client: client)
            state.withLock { state in
                if failure == nil { state.ledger.commitConfirmed(positions) } else { state.ledger.commitFailed(positions) }
            }
            guard let error = failure, error.isRetryable, attempt < 3 else { break }
            Thread.sleep(forTimeInterval: Double(CommitBackoff.delay(afterAttempt: attempt).clampedMilliseconds) / 1000)
        }
        return failure
    }
}

/// Blocks until the broker answered a commit of `positions`; for the rebalance callback and closing, where the
/// partitions must not be released before their watermarks are stored.
func commitSynchronously(_ positions: [(TopicPartition, Int64)], client: OpaquePointer) -> KafkaError? {
    guard !positions.isEmpty else { return nil }
    let list = RDTopicPartitionList(positions.map { ($0.0, $0.1) })
    return list.withListPointer { pointer in
        commitFailure(rd_kafka_commit(client, pointer, 0), pointer)
    }
}

/// The error of a commit answer: the request's own, or the first partition's.
private func commitFailure(_ error: rd_kafka_resp_err_t,
                           _ offsets: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) -> KafkaError? {
    // Nothing to commit is not a failure.
    if error == RD_KAFKA_RESP_ERR__NO_OFFSET { return nil }
    if error != RD_KAFKA_RESP_ERR_NO_ERROR { return KafkaError(error) }
    guard let failed = RDTopicPartitionList.entries(of: offsets).first(where: { $0.error != RD_KAFKA_RESP_ERR_NO_ERROR })
    else { return nil }
    var result = KafkaError(failed.error)
    result.message = "commit of \(failed.partition): \(result.message)"
    return result
}

/// `rd_kafka_commit_queue` reply; runs on the poll thread while it polls the consumer queue.
private func commitCallback(client: OpaquePointer?, error: rd_kafka_resp_err_t,
                            offsets: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                            opaque: UnsafeMutableRawPointer?) {
    guard let opaque else { return }
    let request = Unmanaged<CommitRequest>.fromOpaque(opaque).takeRetainedValue()
    request.complete(commitFailure(error, offsets))
}

/// The rebalance callback; runs on the poll thread inside `rd_kafka_consumer_poll` / `rd_kafka_consumer_close`.
private func rebalanceCallback(client: OpaquePointer?, error: rd_kafka_resp_err_t,
                               partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                               opaque: UnsafeMutableRawPointer?) {
    guard let client else { return }
    let shared = RDCallbackContext.from(opaque).owner(as: ConsumerShared.self)
    shared.rebalance(client: client, reason: error, partitions: partitions)
}

/// librdkafka's statistics; only the group's join state is read. Runs on the poll thread; librdkafka frees the
/// document (the callback returns 0).
private func consumerStatsCallback(client: OpaquePointer?, json: UnsafeMutablePointer<CChar>?, length: Int,
                                   opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let json else { return 0 }
    let shared = RDCallbackContext.from(opaque).owner(as: ConsumerShared.self)
    let state = json.withMemoryRebound(to: UInt8.self, capacity: length) {
        GroupJoinState.parse(UnsafeBufferPointer(start: $0, count: length))
    }
    if let state { shared.state.withLock { $0.joinSteady = state == "steady" } }
    return 0
}

/// Client-level errors (all brokers down, fatal errors); runs on the poll thread.
private func consumerErrorCallback(client: OpaquePointer?, code: Int32, reason: UnsafePointer<CChar>?,
                                   opaque: UnsafeMutableRawPointer?) {
    let shared = RDCallbackContext.from(opaque).owner(as: ConsumerShared.self)
    let error = rd_kafka_resp_err_t(code)
    if error == RD_KAFKA_RESP_ERR__FATAL, let client, let fatal = KafkaError.fatal(on: client) {
        shared.events.yield(.error(fatal))
    } else {
        shared.events.yield(.error(KafkaError(error, detail: reason.map { String(cString: $0) })))
    }
}
