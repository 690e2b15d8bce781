import Testing
@testable import KafkaIO

@Suite(.timeLimit(.minutes(2))) struct TopicAdminTests {
    @Test func anExistingTopicCountsAsSuccess() throws {
        #expect(try TopicCreation.outcome(libraryCode: 36, message: "Topic 'jobs' already exists.").get() == .alreadyExists)
        #expect(try TopicCreation.outcome(libraryCode: 0, message: nil).get() == .created)
    }

    @Test func otherRefusalsBecomeKafkaErrorsWithTheBrokersCodeAndMessage() {
        let refusal = TopicCreation.outcome(libraryCode: 44, message: "partitions must be below 100")
        #expect(throws: KafkaError.self) { try refusal.get() }
        if case .failure(let error) = refusal {
            #expect(error.code == KafkaError.Code("POLICY_VIOLATION"))
            #expect(error.message == "partitions must be below 100")
            #expect(error.libraryCode == 44)
        }
    }

    @Test func theMockClusterCreatesATopicOnceAndThenReportsItExists() async throws {
        let cluster = try await SharedMockCluster.get()
        let name = SharedMockCluster.unique("admin")
        let first = try await cluster.createTopic(name, partitions: 3)
        let second = try await cluster.createTopic(name, partitions: 3)
        #expect(first == .created)
        #expect(second == .alreadyExists)
    }

    @Test func aClusterWithoutCreateTopicsSupportIsReportedAsAKafkaErrorNotAHang() async throws {
        // librdkafka 2.0.2's mock cluster implements no CreateTopics API and names no controller.
        let cluster = try await SharedMockCluster.get()
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        await #expect(throws: KafkaError.self) {
            do {
                _ = try await admin.createTopics([NewTopic(name: SharedMockCluster.unique("admin"), partitions: 1,
                                                           replicationFactor: 1)], timeout: .seconds(1))
            } catch let error as KafkaError {
                #expect(error.code == .timedOut)
                throw error
            }
        }
    }

    @Test func anInvalidTopicDescriptionIsRefusedPerTopicBeforeSending() async throws {
        let cluster = try await SharedMockCluster.get()
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        let results = try await admin.createTopics([NewTopic(name: "bad", partitions: -2, replicationFactor: 1)])
        #expect(results.count == 1)
        #expect(results.first?.topic == "bad")
        #expect(throws: KafkaError.self) { try results.first?.result.get() }
    }
}
