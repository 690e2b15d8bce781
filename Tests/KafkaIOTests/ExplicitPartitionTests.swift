import Foundation
import Testing
import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct ExplicitPartitionTests {
    @Test func aRecordGivenAPartitionLandsThereWhateverItsKeyHashesToAndATombstoneReadsBackAsNil() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("explicit", partitions: 4)
        let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
        let key = "batch-7f3a"
        // Where the partitioner puts the key, then a partition it does not.
        let hashed = try await producer.send(KafkaProducerRecord(topic: topic, key: key, value: Data("by-key".utf8))).partition
        let explicit = (hashed + 1) % 4
        let snapshot = try await producer.send(KafkaProducerRecord(topic: topic, key: key, value: Data("snapshot".utf8),
                                                                  partition: explicit))
        let tombstone = try await producer.send(KafkaProducerRecord(topic: topic, key: key, value: nil, partition: explicit))
        try await producer.close()
        #expect(snapshot.partition == explicit && tombstone.partition == explicit)

        let reader = try KafkaPartitionReader(configuration: SharedMockCluster.configuration(cluster))
        var records: [KafkaRecord] = []
        _ = try await reader.readToEnd(topic: topic, partition: explicit, from: 0) { records += $0 }
        #expect(records.map(\.offset) == [snapshot.offset, tombstone.offset])
        #expect(records.allSatisfy { $0.keyString == key && $0.partition == explicit })
        #expect(records.map(\.value) == [Data("snapshot".utf8), nil])
        let readBack = try await reader.record(topic: topic, partition: explicit, offset: tombstone.offset)
        #expect(readBack != nil && readBack?.value == nil)
    }
}
