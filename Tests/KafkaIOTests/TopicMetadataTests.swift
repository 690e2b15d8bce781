import Foundation
import Testing
@testable import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct TopicMetadataTests {
    @Test func aMissingTopicIsNilAndAskingDoesNotCreateIt() async throws {
        let cluster = try await SharedMockCluster.get()
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        let name = SharedMockCluster.unique("metadata-missing")
        let first = try await admin.partitionCount(of: name)
        let second = try await admin.partitionCount(of: name)
        #expect(first == nil)
        #expect(second == nil)
        // Had either lookup created the topic, the mock would report it as existing.
        #expect(try await cluster.createTopic(name, partitions: 2) == .created)
        #expect(try await admin.partitionCount(of: name) == 2)
    }

    @Test(arguments: [1, 3, 12])
    func anExistingTopicReportsItsPartitionCount(partitions: Int) async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("metadata-count", partitions: partitions)
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        #expect(try await admin.partitionCount(of: topic) == partitions)
    }

    @Test func autoCreateHasTheBrokerCreateAMissingTopicWithItsDefaultPartitionCount() async throws {
        let cluster = try await SharedMockCluster.get()
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        let name = SharedMockCluster.unique("metadata-auto")
        // librdkafka's mock creates auto-created topics with 4 partitions.
        #expect(try await admin.partitionCount(of: name, autoCreate: true) == 4)
        #expect(try await admin.partitionCount(of: name) == 4)
        #expect(try await cluster.createTopic(name, partitions: 2) == .alreadyExists)
    }

    @Test func autoCreateLeavesAnExistingTopicAsItIs() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("metadata-auto-existing", partitions: 2)
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        #expect(try await admin.partitionCount(of: topic, autoCreate: true) == 2)
    }

    @Test func noBrokerIsARetryableErrorNotAHang() async throws {
        let admin = try KafkaTopicAdmin(configuration: KafkaConfiguration(bootstrapServers: "127.0.0.1:9",
                                                                           logHandler: { _ in }))
        await #expect(throws: KafkaError.self) {
            do {
                _ = try await admin.partitionCount(of: "jobs", timeout: .milliseconds(300))
            } catch let error as KafkaError {
                // librdkafka answers `_TRANSPORT` (connection refused) or `_TIMED_OUT`.
                #expect(error.isRetryable)
                throw error
            }
        }
    }

    @Test func metadataAnswersAreClassifiedByTheTopicsErrorAndPartitions() {
        #expect(TopicLookup.classify(listed: true, libraryCode: 0, partitionCount: 6) == .partitions(6))
        #expect(TopicLookup.classify(listed: false, libraryCode: 0, partitionCount: 0) == .missing)
        #expect(TopicLookup.classify(listed: true, libraryCode: 3, partitionCount: 0) == .missing)
        #expect(TopicLookup.classify(listed: true, libraryCode: 5, partitionCount: 0) == .pending)
        #expect(TopicLookup.classify(listed: true, libraryCode: 5, partitionCount: 3) == .partitions(3))
        #expect(TopicLookup.classify(listed: true, libraryCode: 0, partitionCount: 0) == .pending)
        #expect(TopicLookup.classify(listed: true, libraryCode: 29, partitionCount: 0)
                == .failed(KafkaError(libraryCode: 29)))
    }
}

/// The same lookups against another broker, e.g. librdkafka 2.16's mock (`mock_kafka.py --brokers 1`, whose first
/// line is the address): off unless `KAFKAIO_EXTERNAL_BOOTSTRAP` names one.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KAFKAIO_EXTERNAL_BOOTSTRAP"] != nil), .timeLimit(.minutes(1)))
struct ExternalClusterTopicMetadataTests {
    @Test func aMissingTopicStaysMissingUntilAutoCreated() async throws {
        let bootstrap = try #require(ProcessInfo.processInfo.environment["KAFKAIO_EXTERNAL_BOOTSTRAP"])
        let admin = try KafkaTopicAdmin(configuration: KafkaConfiguration(bootstrapServers: bootstrap))
        let name = SharedMockCluster.unique("external-metadata")
        #expect(try await admin.partitionCount(of: name) == nil)
        #expect(try await admin.partitionCount(of: name) == nil)
        let created = try await admin.partitionCount(of: name, autoCreate: true)
        #expect(created != nil)
        #expect(try await admin.partitionCount(of: name) == created)
    }

    @Test func aPartitionIsReadToItsEnd() async throws {
        let bootstrap = try #require(ProcessInfo.processInfo.environment["KAFKAIO_EXTERNAL_BOOTSTRAP"])
        let configuration = KafkaConfiguration(bootstrapServers: bootstrap)
        let topic = SharedMockCluster.unique("external-reader")
        _ = try await KafkaTopicAdmin(configuration: configuration).partitionCount(of: topic, autoCreate: true)
        let producer = try KafkaProducer(configuration: configuration)
        let results = await producer.send((0..<300).map {
            KafkaProducerRecord(topic: topic, key: "k", value: $0 == 7 ? nil : Data("\($0)".utf8), partition: 0)
        })
        try await producer.close()
        #expect(try results.map { try $0.get().offset } == Array(0..<300))
        var records: [KafkaRecord] = []
        let outcome = try await KafkaPartitionReader(configuration: configuration)
            .readToEnd(topic: topic, partition: 0, from: 0) { records += $0 }
        #expect(outcome == .completed(PartitionReadSummary(startOffset: 0, endOffset: 300, lowWatermark: 0, recordsRead: 300)))
        #expect(records.map(\.offset) == Array(0..<300) && records[7].value == nil)
    }
}
