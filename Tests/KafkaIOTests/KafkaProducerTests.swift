import Foundation
import Testing
@testable import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct KafkaProducerTests {
    @Test func deliveryReportsCarryThePartitionAndConsecutiveOffsetsPerKey() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("reports", partitions: 4)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let keys = ["trip-1", "trip-2", "trip-3", "trip-4", "trip-5"]
        let records = (0..<50).map { KafkaProducerRecord(topic: topic, key: keys[$0 % keys.count], value: Data("\($0)".utf8)) }
        let results = await producer.send(records)
        try await producer.close()

        let reports = try results.map { try $0.get() }
        #expect(reports.allSatisfy { $0.topic == topic && (0..<4).contains($0.partition) })
        for key in keys {
            let partitions = Set(zip(records, reports).filter { $0.0.key == Data(key.utf8) }.map(\.1.partition))
            #expect(partitions.count == 1)
        }
        for partition in Set(reports.map(\.partition)) {
            let offsets = reports.filter { $0.partition == partition }.map(\.offset)
            #expect(offsets == Array(0..<Int64(offsets.count)))
        }
    }

    @Test func manyRecordsInFlightAreAllDeliveredAndFlushLeavesNothingQueued() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("in-flight", partitions: 2)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        var tickets: [KafkaDeliveryTicket] = []
        for index in 0..<1000 {
            tickets.append(try await producer.enqueue(KafkaProducerRecord(topic: topic, key: nil, value: Data("\(index)".utf8))))
        }
        try await producer.flush(timeout: .seconds(30))
        let settledAfterFlush = tickets.allSatisfy(\.isSettled)
        var offsets: [Int32: [Int64]] = [:]
        for ticket in tickets {
            let report = try await ticket.report()
            offsets[report.partition, default: []].append(report.offset)
        }
        try await producer.close()
        #expect(settledAfterFlush)
        #expect(offsets.values.reduce(0) { $0 + $1.count } == 1000)
        for list in offsets.values { #expect(list.sorted() == Array(0..<Int64(list.count))) }
    }

    @Test func aRecordTooLargeForTheProducerIsRefusedWithLibrdkafkasCode() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("too-large")
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(
            cluster, properties: ["message.max.bytes": "1000"]))
        await #expect(throws: KafkaError.self) {
            do {
                _ = try await producer.send(topic: topic, key: nil, value: Data(count: 5000))
            } catch let error as KafkaError {
                #expect(error.code == KafkaError.Code("MSG_SIZE_TOO_LARGE"))
                throw error
            }
        }
        try await producer.close()
    }

    @Test func sendingAfterCloseIsRefused() async throws {
        let cluster = try await SharedMockCluster.get()
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        try await producer.close()
        await #expect(throws: KafkaError(.closed, "the producer is closed")) {
            _ = try await producer.send(topic: "closed", key: nil, value: nil)
        }
    }

    @Test func theProducerIsIdempotentWithAcksFromAllReplicasByDefault() throws {
        let properties = try KafkaConfiguration(bootstrapServers: "127.0.0.1:9").resolvedProperties(for: .producer)
        let resolved = Dictionary(properties, uniquingKeysWith: { _, last in last })
        #expect(resolved["enable.idempotence"] == "true")
        #expect(resolved["acks"] == "all")
    }
}
