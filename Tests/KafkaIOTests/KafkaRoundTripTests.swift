import Foundation
import Testing
import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct KafkaRoundTripTests {
    @Test func producedRecordsAreConsumedWithKeysValuesAndHeaders() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("round-trip", partitions: 3)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        var reports: [String: KafkaDeliveryReport] = [:]
        for index in 0..<6 {
            let report = try await producer.send(
                topic: topic, key: Data("batch-\(index)".utf8), value: Data("{\"n\":\(index)}".utf8),
                headers: [KafkaHeader("trace", "t-\(index)"), KafkaHeader("empty", Data()), KafkaHeader("none", nil)])
            reports["batch-\(index)"] = report
        }
        let consumer = try KafkaConsumer(
            configuration: SharedMockCluster.configuration(cluster, group: SharedMockCluster.unique("group")),
            topics: [topic])
        let records = await consumer.records.first(6)
        try await consumer.close()
        try await producer.close()

        #expect(records.count == 6)
        for record in records {
            let key = try #require(record.keyString)
            let index = try #require(Int(key.dropFirst("batch-".count)))
            let report = try #require(reports[key])
            #expect(record.topic == topic)
            #expect(record.partition == report.partition)
            #expect(record.offset == report.offset)
            #expect(record.value == Data("{\"n\":\(index)}".utf8))
            #expect(record.headers == [KafkaHeader("trace", "t-\(index)"), KafkaHeader("empty", Data()),
                                       KafkaHeader("none", nil)])
            #expect(record.timestampMilliseconds != nil)
        }
    }
}
