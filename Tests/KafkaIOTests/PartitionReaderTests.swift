import Foundation
import Synchronization
import Testing
import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct PartitionReaderTests {
    /// Produces `values` to one partition and returns their offsets.
    static func produce(_ values: [Data?], to topic: String, partition: Int32, cluster: MockKafkaCluster,
                        key: (Int) -> String = { "key-\($0)" }) async throws -> [Int64] {
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let results = await producer.send(values.enumerated().map { index, value in
            KafkaProducerRecord(topic: topic, key: key(index), value: value,
                                headers: [KafkaHeader("n", "\(index)")], partition: partition)
        })
        try await producer.close()
        return try results.map { try $0.get().offset }
    }

    /// Reads a partition to its end, collecting the records and the handler's batch sizes.
    static func readAll(_ reader: KafkaPartitionReader, _ topic: String, partition: Int32 = 0,
                        from offset: Int64 = 0) async throws -> (PartitionReadOutcome, [KafkaRecord], [Int]) {
        var records: [KafkaRecord] = []
        var batches: [Int] = []
        let outcome = try await reader.readToEnd(topic: topic, partition: partition, from: offset) { batch in
            records += batch
            batches.append(batch.count)
        }
        return (outcome, records, batches)
    }

    static func reader(_ cluster: MockKafkaCluster, options: KafkaPartitionReaderOptions = .init()) throws -> KafkaPartitionReader {
        try KafkaPartitionReader(configuration: SharedMockCluster.configuration(cluster), options: options)
    }

    @Test func anEmptyPartitionIsReadAtOnceWithoutCallingTheHandler() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-empty")
        let (outcome, records, batches) = try await Self.readAll(try Self.reader(cluster), topic)
        #expect(outcome == .completed(PartitionReadSummary(startOffset: 0, endOffset: 0, lowWatermark: 0, recordsRead: 0)))
        #expect(records.isEmpty && batches.isEmpty)
    }

    @Test func everyRecordUpToTheEndIsHandedOverInOrderWithKeyValueHeadersAndTombstones() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-all", partitions: 2)
        var values: [Data?] = (0..<250).map { Data("value-\($0)".utf8) }
        values[17] = nil
        values[18] = Data()
        let offsets = try await Self.produce(values, to: topic, partition: 1, cluster: cluster)
        let (outcome, records, batches) = try await Self.readAll(
            try Self.reader(cluster, options: KafkaPartitionReaderOptions(maxBatchSize: 100)), topic, partition: 1)

        #expect(outcome == .completed(PartitionReadSummary(startOffset: 0, endOffset: 250, lowWatermark: 0, recordsRead: 250)))
        #expect(records.map(\.offset) == offsets)
        #expect(batches.allSatisfy { $0 <= 100 })
        #expect(records.allSatisfy { $0.topic == topic && $0.partition == 1 })
        #expect(records.map(\.value) == values)
        #expect(records[17].value == nil && records[18].value == Data())
        #expect(records.map(\.keyString) == (0..<250).map { "key-\($0)" })
        #expect(records[42].headers == [KafkaHeader("n", "42")])
    }

    @Test func aReadFromTheMiddleStartsThereAndAStartAtTheEndReadsNothing() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-middle")
        _ = try await Self.produce((0..<20).map { Data("\($0)".utf8) }, to: topic, partition: 0, cluster: cluster)
        let reader = try Self.reader(cluster)
        let (middle, records, _) = try await Self.readAll(reader, topic, from: 15)
        let (atEnd, none, _) = try await Self.readAll(reader, topic, from: 20)
        #expect(middle == .completed(PartitionReadSummary(startOffset: 15, endOffset: 20, lowWatermark: 0, recordsRead: 5)))
        #expect(records.map(\.offset) == [15, 16, 17, 18, 19])
        #expect(atEnd == .completed(PartitionReadSummary(startOffset: 20, endOffset: 20, lowWatermark: 0, recordsRead: 0)))
        #expect(none.isEmpty)
    }

    @Test func aStartPastTheEndIsReportedAsAheadOfTheTopic() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-ahead")
        _ = try await Self.produce([Data("a".utf8), Data("b".utf8)], to: topic, partition: 0, cluster: cluster)
        let (outcome, records, _) = try await Self.readAll(try Self.reader(cluster), topic, from: 9)
        #expect(outcome == .aheadOfTopic(end: 2))
        #expect(records.isEmpty)
    }

    @Test func aStartBelowTheLogStartBeginsAtTheLogStart() async throws {
        // The mock keeps about 5 MB per partition and drops the oldest batches beyond that.
        let (cluster, topic) = try await SharedMockCluster.topic("reader-log-start")
        let big = Data(repeating: 0x61, count: 100_000)
        _ = try await Self.produce(Array(repeating: big, count: 70), to: topic, partition: 0, cluster: cluster)
        let reader = try Self.reader(cluster)
        let (outcome, records, _) = try await Self.readAll(reader, topic, from: 0)
        guard case .completed(let summary) = outcome else {
            Issue.record("unexpected \(outcome)")
            return
        }
        #expect(summary.lowWatermark > 0)
        #expect(summary.startOffset == summary.lowWatermark)
        #expect(summary.endOffset == 70)
        #expect(records.first?.offset == summary.lowWatermark)
        #expect(records.map(\.offset) == Array(summary.lowWatermark..<70))
        #expect(try await reader.record(topic: topic, partition: 0, offset: 0) == nil)
    }

    @Test func recordsProducedWhileReadingAreNotHandedOver() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-growing")
        _ = try await Self.produce((0..<30).map { Data("\($0)".utf8) }, to: topic, partition: 0, cluster: cluster)
        let reader = try Self.reader(cluster, options: KafkaPartitionReaderOptions(maxBatchSize: 10))
        var records: [KafkaRecord] = []
        var appended: [Int64] = []
        let outcome = try await reader.readToEnd(topic: topic, partition: 0, from: 0) { batch in
            if records.isEmpty {
                appended = try await Self.produce((0..<5).map { Data("late-\($0)".utf8) }, to: topic, partition: 0,
                                                  cluster: cluster)
            }
            records += batch
        }
        #expect(appended == [30, 31, 32, 33, 34])
        #expect(outcome == .completed(PartitionReadSummary(startOffset: 0, endOffset: 30, lowWatermark: 0, recordsRead: 30)))
        #expect(records.map(\.offset) == Array(0..<30))
    }

    @Test func oneRecordIsReadBackByOffsetAndOffsetsOutsideThePartitionAreNil() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-one")
        let values = (0..<10).map { Data("inline-\($0)".utf8) }
        _ = try await Self.produce(values, to: topic, partition: 0, cluster: cluster)
        let reader = try Self.reader(cluster)
        let seventh = try #require(try await reader.record(topic: topic, partition: 0, offset: 7))
        #expect(seventh.offset == 7 && seventh.value == values[7] && seventh.keyString == "key-7")
        #expect(try await reader.record(topic: topic, partition: 0, offset: 0)?.value == values[0])
        #expect(try await reader.record(topic: topic, partition: 0, offset: 10) == nil)
        #expect(try await reader.record(topic: topic, partition: 0, offset: 500) == nil)
    }

    @Test func oneReaderReadsSeveralPartitionsAtOnceAndTheSamePartitionTwice() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-parallel", partitions: 4)
        for partition in 0..<4 {
            _ = try await Self.produce((0..<(100 * (partition + 1))).map { Data("p\(partition)-\($0)".utf8) },
                                       to: topic, partition: Int32(partition), cluster: cluster)
        }
        let reader = try Self.reader(cluster, options: KafkaPartitionReaderOptions(maxBatchSize: 50))
        let reads = [0, 1, 2, 3, 3].map { Int32($0) }
        let results = try await withThrowingTaskGroup(of: (Int32, PartitionReadOutcome, [KafkaRecord]).self) { group in
            for partition in reads {
                group.addTask {
                    let (outcome, records, _) = try await Self.readAll(reader, topic, partition: partition)
                    return (partition, outcome, records)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 5)
        for (partition, outcome, records) in results {
            let count = 100 * (Int(partition) + 1)
            #expect(outcome == .completed(PartitionReadSummary(startOffset: 0, endOffset: Int64(count), lowWatermark: 0,
                                                               recordsRead: count)))
            #expect(records.map(\.value) == (0..<count).map { Data("p\(partition)-\($0)".utf8) })
        }
    }

    struct HandlerFailure: Error {}

    @Test func aHandlerErrorEndsTheReadAndThePartitionCanBeReadAgain() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-throws")
        _ = try await Self.produce((0..<50).map { Data("\($0)".utf8) }, to: topic, partition: 0, cluster: cluster)
        let reader = try Self.reader(cluster, options: KafkaPartitionReaderOptions(maxBatchSize: 5))
        let calls = Mutex(0)
        await #expect(throws: HandlerFailure.self) {
            _ = try await reader.readToEnd(topic: topic, partition: 0, from: 0) { _ in
                calls.withLock { $0 += 1 }
                throw HandlerFailure()
            }
        }
        #expect(calls.withLock { $0 } == 1)
        let (again, records, _) = try await Self.readAll(reader, topic)
        #expect(again == .completed(PartitionReadSummary(startOffset: 0, endOffset: 50, lowWatermark: 0, recordsRead: 50)))
        #expect(records.count == 50)
    }

    @Test func anUnknownPartitionIsAnError() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reader-unknown", partitions: 1)
        let reader = try Self.reader(cluster, options: KafkaPartitionReaderOptions(requestTimeout: .seconds(2)))
        await #expect(throws: KafkaError.self) {
            _ = try await reader.readToEnd(topic: topic, partition: 5, from: 0) { _ in }
        }
    }
}
