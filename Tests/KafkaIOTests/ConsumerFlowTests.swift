import Foundation
import TestSupport
import Synchronization
import Testing
@testable import KafkaIO

/// Collects what a consumer delivers in the background so a test can look at it at chosen moments.
final class DeliveryLog: Sendable {
    private struct State {
        var records: [KafkaRecord] = []
        var events: [KafkaConsumerEvent] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init(_ consumer: KafkaConsumer) {
        Task { [self] in
            for await record in consumer.records {
                let ready = state.withLock { state in
                    state.records.append(record)
                    let ready = state.waiters.filter { $0.count <= state.records.count }
                    state.waiters.removeAll { $0.count <= state.records.count }
                    return ready
                }
                ready.forEach { $0.continuation.resume() }
            }
        }
        Task { [self] in
            for await event in consumer.events { state.withLock { $0.events.append(event) } }
        }
    }

    var records: [KafkaRecord] { state.withLock { $0.records } }
    var events: [KafkaConsumerEvent] { state.withLock { $0.events } }

    /// Returns once at least `count` records arrived (at most 60 s: then an issue is recorded).
    func waitForRecords(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await waitFor("\(count) records", timeout: .seconds(60), sourceLocation: sourceLocation) { await self.reach(count) }
    }

    private func reach(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.records.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct ConsumerFlowTests {
    @Test func pauseStopsDeliveryAndResumeRestartsItWhileTheConsumerStaysInTheGroup() async throws {
        // max.poll.interval.ms of 4 s (the session must outlast the mock's 3 s join delay, and the poll interval
        // may not be shorter than the session): a consumer that stopped polling while paused would leave the
        // group during the pause below and report an error and a lost or revoked assignment.
        let (topic, producer, consumer, log) = try await consumerPastOneRecord("pause", ["max.poll.interval.ms": "4000"])

        consumer.pause()
        // Let the poll thread apply the pause before producing: a commit goes through the same thread, after it.
        try await consumer.commit()
        _ = await producer.send((0..<3).map { KafkaProducerRecord(topic: topic, key: nil, value: Data("paused-\($0)".utf8)) })
        // A negative observation needs a window: 5 s is longer than max.poll.interval.ms and ten fetch waits.
        try await Task.sleep(for: .seconds(5))
        let duringPause = log.records.count
        let eventsDuringPause = log.events

        consumer.resume()
        await log.waitForRecords(4)
        try await consumer.commit()
        let assignment = consumer.assignment
        try await consumer.close()
        try await producer.close()

        #expect(duringPause == 1)
        #expect(eventsDuringPause == [.assigned([TopicPartition(topic, 0)])])
        #expect(log.records.map { String(decoding: $0.value ?? Data(), as: UTF8.self) }
            == ["before", "paused-0", "paused-1", "paused-2"])
        #expect(assignment == [TopicPartition(topic, 0)])
    }

    /// librdkafka 2.0's broker thread, once everything it fetches is paused, looks again only when something wakes
    /// it or after up to a second; a resume alone does not wake it. Each round resumes well after the thread went
    /// idle (its last fetch waits at most 50 ms here): without a wakeup every round's record came 0.69 s after the
    /// resume; with it, within 1 ms on an idle machine.
    ///
    /// The arrival is timed on a plain thread at the poll thread's hand-over, not where a task awaits it: a task's
    /// resumption waits for the cooperative pool, which every other suite shares (in one full run the first round
    /// read 0.81 s that way). Most rounds, not all, must be quick, so one round delayed by a busy host cannot fail it
    /// while a missing wakeup, which delays nearly every round, still does.
    @Test func resumeFetchesAtOnceAfterTheFetcherWentIdle() async throws {
        let (topic, producer, consumer, log) = try await consumerPastOneRecord("resume", ["fetch.wait.max.ms": "50"])
        let partition = TopicPartition(topic, 0)
        var latencies: [Duration] = []
        for round in 0..<6 {
            consumer.pause()
            try await consumer.commit()
            _ = try await producer.send(topic: topic, key: nil, value: Data("paused-\(round)".utf8))
            try await Task.sleep(for: .milliseconds(300))
            latencies.append(await Self.resume(consumer, untilRead: Int64(round + 2), of: partition))
            await log.waitForRecords(round + 2)
        }
        try await consumer.close()
        try await producer.close()

        #expect(log.records.map { String(decoding: $0.value ?? Data(), as: UTF8.self) }
            == ["before"] + (0..<6).map { "paused-\($0)" })
        #expect(latencies.filter { $0 < .milliseconds(250) }.count >= 4, "delivery after each resume: \(latencies)")
    }

    /// Resumes `consumer` and returns how long its poll thread took to take `partition` up to `offset` (at most 5 s).
    private static func resume(_ consumer: KafkaConsumer, untilRead offset: Int64,
                               of partition: TopicPartition) async -> Duration {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let clock = ContinuousClock()
                let resumed = clock.now
                consumer.resume()
                func read() -> Int64 {
                    consumer.shared.state.withLock { state in
                        state.ledger.readPositions.first { $0.0 == partition }?.1 ?? 0
                    }
                }
                while read() < offset, clock.now - resumed < .seconds(5) { usleep(200) }
                continuation.resume(returning: clock.now - resumed)
            }
        }
    }

    /// A consumer in a group of its own on a fresh topic, with a producer, once it has delivered a first record
    /// ("before"): it holds its partition and is reading.
    private func consumerPastOneRecord(_ name: String, _ properties: [String: String]) async throws
        -> (topic: String, producer: KafkaProducer, consumer: KafkaConsumer, log: DeliveryLog) {
        let (cluster, topic) = try await SharedMockCluster.topic(name)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group"),
                                                           properties: properties),
            topics: [topic])
        let log = DeliveryLog(consumer)
        _ = try await producer.send(topic: topic, key: nil, value: Data("before".utf8))
        await log.waitForRecords(1)
        return (topic, producer, consumer, log)
    }

    @Test(arguments: [Duration.seconds(1), .zero])
    func aSlowReaderPausesFetchingInsteadOfBufferingWithoutBound(pauseDelay: Duration) async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("backpressure")
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        _ = await producer.send((0..<200).map { KafkaProducerRecord(topic: topic, key: nil, value: Data([UInt8($0 % 256)])) })
        try await producer.close()
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic], options: KafkaConsumerOptions(maxBufferedRecords: 20, throttlePauseDelay: pauseDelay, pollBatchSize: 10))
        let (offsets, mostBuffered) = await waitFor("200 records", timeout: .seconds(60)) { () -> ([Int64], Int) in
            var iterator = consumer.records.makeAsyncIterator()
            var offsets: [Int64] = []
            var mostBuffered = 0
            while offsets.count < 200, let record = await iterator.next() {
                offsets.append(record.offset)
                mostBuffered = max(mostBuffered, consumer.bufferedRecordCount)
            }
            return (offsets, mostBuffered)
        } ?? ([], 0)
        try await consumer.close()
        #expect(offsets == Array(0..<200))
        #expect(mostBuffered <= 20 + 10, "the buffer stops at its mark plus one poll batch, whether or not fetching paused")
    }
}
