import CRdKafka
import Testing
@testable import KafkaIO

/// The periodic commit holds off while a rebalance it was told of is under way (librdkafka issue #4059: a commit
/// answered ILLEGAL_GENERATION mid-rebalance makes librdkafka 2.0.2 drop the member's assignment).
@Suite struct RebalanceHoldTests {
    private func shared() -> ConsumerShared {
        let (_, continuation) = AsyncStream<KafkaConsumerEvent>.makeStream()
        return ConsumerShared(groupID: "g", options: KafkaConsumerOptions(), onRevoke: { _, _ in }, events: continuation,
                              waker: PollWaker())
    }

    @Test func aCommitToldOfARebalanceHoldsThePeriodicCommitUntilTheNextAssignmentOrTheHoldEnds() {
        let consumer = shared()
        let now = ContinuousClock.now
        #expect(!consumer.state.withLock { $0.isRejoining(at: now) })

        let request = CommitRequest(positions: [(TopicPartition("jobs", 0), 5)], shared: consumer, waiter: nil)
        request.complete(KafkaError(RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS))
        #expect(consumer.state.withLock { $0.isRejoining(at: .now) })
        #expect(!consumer.state.withLock { $0.isRejoining(at: .now + ConsumerShared.rebalanceHold) }, "never longer than the hold")

    }

    @Test func otherCommitFailuresDoNotHoldCommits() {
        let consumer = shared()
        CommitRequest(positions: [(TopicPartition("jobs", 0), 6)], shared: consumer, waiter: nil)
            .complete(KafkaError(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT))
        #expect(!consumer.state.withLock { $0.isRejoining(at: .now) })
    }
}
