import CRdKafka

/// One asynchronous offset commit in flight: what was sent and who waits for the broker's answer.
///
/// Travels to librdkafka as the commit opaque (retained) and comes back in the commit callback on the poll thread.
final class CommitRequest: Sendable {
    /// The partitions and offsets sent.
    let positions: [(TopicPartition, Int64)]
    private let shared: ConsumerShared
    private let hasWaiter: Bool

    /// Registers `waiter` (if any) with the consumer so closing can fail it should no reply ever come.
    init(positions: [(TopicPartition, Int64)], shared: ConsumerShared, waiter: CompletionPromise<Void>?) {
        self.positions = positions
        self.shared = shared
        self.hasWaiter = waiter != nil
        if let waiter {
            let id = ObjectIdentifier(self)
            shared.state.withLock { $0.commitWaiters[id] = waiter }
        }
    }

    /// Applies the broker's answer: a failed commit is sent again later and reported as an event.
    func complete(_ error: KafkaError?) {
        let id = ObjectIdentifier(self)
        let waiter = shared.state.withLock { state -> CompletionPromise<Void>? in
            if error != nil { state.ledger.commitFailed(positions) } else { state.ledger.commitConfirmed(positions) }
            if error?.libraryCode == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS.rawValue { state.rebalanceSeen = .now }
            return hasWaiter ? state.commitWaiters.removeValue(forKey: id) : nil
        }
        if let error {
            shared.events.yield(.error(error))
            waiter?.fulfill(.failure(error))
        } else {
            waiter?.fulfill(.success(()))
        }
    }
}
