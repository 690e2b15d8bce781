import Foundation
import Testing
import KafkaIO

/// Restore speed of ``KafkaPartitionReader`` against the in-process mock cluster; prints numbers, asserts only that
/// everything was read.
///
/// Run with `KAFKAIO_BENCH=1 swift test --filter PartitionReaderBenchmark` (add `-c release -Xswiftc -enable-testing`
/// for release figures). 100,000 records of about 500 bytes are 50 MB, ten times what one mock partition keeps (about
/// 5 MB, see `KafkaThroughputBenchmark`), so they are spread over 16 partitions of about 3.3 MB each.
///
/// Measured in a debug build on 2 shared cores: the 100,000 records in 0.27–0.31 s with the 16 partitions read at once,
/// 0.64–0.68 s one after another; a read's first batch 12–19 ms after the call; one record by offset 9–19 ms.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KAFKAIO_BENCH"] != nil), .serialized, .timeLimit(.minutes(5)))
struct PartitionReaderBenchmark {
    private static let count = 100_000
    private static let partitions = 16

    /// A changelog-like snapshot of about 500 bytes.
    private static func value(_ index: Int) -> Data {
        let id = String(format: "%08x", index &* 2_654_435_761 & 0xffff_ffff)
        let json = #"{"v":1,"batchId":"b-\#(id)","generation":3,"appliedThrough":\#(index),"receiver":{"id":"u-\#(index % 977)","type":"user"},"files":[{"fileId":"f-\#(id)-1","name":"photo-\#(index).jpg","mimeType":"image/jpeg","size":\#(index * 31 % 900_000),"state":"uploaded","attempt":1,"sha256":"\#(id)\#(id)\#(id)\#(id)\#(id)\#(id)\#(id)\#(id)"},{"fileId":"f-\#(id)-2","name":"notes.txt","state":"pending","attempt":0,"source":{"partition":\#(index % 16),"offset":\#(index),"file":1}}],"sequence":\#(index % 40),"updatedAt":"2026-01-01T00:00:00Z"}"#
        return Data(json.utf8)
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value < 0.1 ? String(format: "%.1f ms", value * 1000) : String(format: "%.3f s", value)
    }

    /// Reads one partition to its end and counts the records.
    private static func readPartition(_ reader: KafkaPartitionReader, _ topic: String, _ partition: Int32) async throws -> Int {
        var read = 0
        _ = try await reader.readToEnd(topic: topic, partition: partition, from: 0) { read += $0.count }
        return read
    }

    @Test func restoreSpeed() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("restore-bench", partitions: Self.partitions)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        var tickets: [KafkaDeliveryTicket] = []
        tickets.reserveCapacity(Self.count)
        for index in 0..<Self.count {
            tickets.append(try await producer.enqueue(KafkaProducerRecord(
                topic: topic, key: "b-\(index)", value: Self.value(index), partition: Int32(index % Self.partitions))))
        }
        for ticket in tickets { _ = try await ticket.report() }
        try await producer.close()
        print("value size: \(Self.value(0).count)–\(Self.value(Self.count - 1).count) bytes")
        let clock = ContinuousClock()

        // Start latency: from the call to the first batch, on a new reader and on one that has read before.
        for label in ["new reader", "warm reader"] {
            let reader = try KafkaPartitionReader(configuration: SharedMockCluster.configuration(cluster))
            if label == "warm reader" { _ = try await reader.record(topic: topic, partition: 15, offset: 0) }
            let start = clock.now
            var first: Duration?
            var read = 0
            _ = try await reader.readToEnd(topic: topic, partition: 0, from: 0) { batch in
                first = first ?? start.duration(to: clock.now)
                read += batch.count
            }
            print("\(label): first batch after \(Self.seconds(first ?? .zero)), \(read) records of one partition in \(Self.seconds(start.duration(to: clock.now)))")
            #expect(read == Self.count / Self.partitions)
        }

        for concurrent in [false, true] {
            let reader = try KafkaPartitionReader(configuration: SharedMockCluster.configuration(cluster))
            let start = clock.now
            var read = 0
            if concurrent {
                read = try await withThrowingTaskGroup(of: Int.self) { group in
                    for partition in 0..<Self.partitions {
                        group.addTask { try await Self.readPartition(reader, topic, Int32(partition)) }
                    }
                    return try await group.reduce(0, +)
                }
            } else {
                for partition in 0..<Self.partitions {
                    read += try await Self.readPartition(reader, topic, Int32(partition))
                }
            }
            let elapsed = start.duration(to: clock.now)
            let rate = Double(read) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            print("\(concurrent ? "16 partitions at once" : "16 partitions one after another"), one new reader: \(read) records in \(Self.seconds(elapsed)) = \(Int(rate)) /s")
            #expect(read == Self.count)
        }

        let reader = try KafkaPartitionReader(configuration: SharedMockCluster.configuration(cluster))
        _ = try await reader.record(topic: topic, partition: 3, offset: 0)
        let lookups = 50
        let lookupTime = try await clock.measure {
            for index in 0..<lookups {
                let record = try await reader.record(topic: topic, partition: 3, offset: Int64(index * 100))
                #expect(record != nil)
            }
        }
        print("record(topic:partition:offset:) on a warm reader: \(Self.seconds(lookupTime / lookups)) each")
    }
}
