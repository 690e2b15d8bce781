import Foundation
import Testing
import KafkaIO

/// Throughput against the in-process mock cluster; prints numbers, asserts only that everything arrived.
///
/// Run with `KAFKAIO_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter KafkaThroughputBenchmark`.
/// Keep `KAFKAIO_BENCH_COUNT` at or below 100,000: the mock keeps about 5 MB per partition and drops older
/// records beyond that, which would leave the consumer waiting for records that are gone.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KAFKAIO_BENCH"] != nil), .serialized,
       .timeLimit(.minutes(5)))
struct KafkaThroughputBenchmark {
    private static let count = Int(ProcessInfo.processInfo.environment["KAFKAIO_BENCH_COUNT"] ?? "") ?? 100_000

    private static func value(_ index: Int) -> Data {
        Data(#"{"kind":"upload","batchId":"b-\#(index)","receiver":{"id":"u1","type":"user"},"files":[{"fileId":"f1","name":"a.txt","source":{"data":"aGVsbG8="}}]}"#.utf8)
    }

    private static func rate(_ count: Int, _ elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "\(count) in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) /s"
    }

    @Test func producerAndConsumerThroughput() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("bench", partitions: 4)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let clock = ContinuousClock()

        var tickets: [KafkaDeliveryTicket] = []
        tickets.reserveCapacity(Self.count)
        let produced = try await clock.measure {
            for index in 0..<Self.count {
                tickets.append(try await producer.enqueue(
                    KafkaProducerRecord(topic: topic, key: "batch-\(index % 1000)", value: Self.value(index),
                                        headers: [KafkaHeader("trace", "t")])))
            }
            for ticket in tickets { _ = try await ticket.report() }
        }
        print("producer enqueue+await all: \(Self.rate(Self.count, produced))")

        let sequentialCount = min(Self.count, 1_000)
        let sequential = try await clock.measure {
            for index in 0..<sequentialCount {
                _ = try await producer.send(topic: topic, key: Data("k".utf8), value: Self.value(index))
            }
        }
        print("producer send one at a time: \(Self.rate(sequentialCount, sequential))")
        try await producer.close()
        let total = Self.count + sequentialCount

        for batched in [true, false] {
            let consumer = try KafkaConsumer(
                configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("bench")),
                topics: [topic])
            var iterator = consumer.records.makeAsyncIterator()
            // Wait for the first record so the group join is not measured.
            let first = try #require(await iterator.next())
            consumer.markFinished(first)
            var received = 1
            let consumed = await clock.measure {
                if batched {
                    while received < total, let batch = await iterator.nextBatch(maximum: 1024) {
                        consumer.markFinished(batch)
                        received += batch.count
                    }
                } else {
                    while received < total, let record = await iterator.next() {
                        consumer.markFinished(record)
                        received += 1
                    }
                }
            }
            try await consumer.commit()
            try await consumer.close()
            print("consumer \(batched ? "nextBatch" : "next()") + markFinished: \(Self.rate(received - 1, consumed))")
            #expect(received == total)
        }
    }
}
