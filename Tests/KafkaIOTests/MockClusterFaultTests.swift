import Testing
@testable import KafkaIO

/// The fault commands `attache dev-broker --faults` reads: what each line means, and which lines are refused.
@Suite struct MockClusterFaultTests {
    @Test func brokerCommandsNameABrokerOfTheCluster() throws {
        #expect(try MockClusterFault.parse("down 2", brokers: 3) == .brokerDown(2))
        #expect(try MockClusterFault.parse("  up\t3 ", brokers: 3) == .brokerUp(3))
        #expect(try MockClusterFault.parse("rtt 1 250", brokers: 3) == .roundTripTime(broker: 1, milliseconds: 250))
        #expect(try MockClusterFault.parse("leader attache.jobs 3 2", brokers: 3)
            == .partitionLeader(topic: "attache.jobs", partition: 3, broker: 2))
        #expect(try MockClusterFault.parse("coordinator attache 1", brokers: 3) == .groupCoordinator(group: "attache", broker: 1))
    }

    @Test func requestErrorsTakeNumbersAndNamesInOrder() throws {
        #expect(try MockClusterFault.parse("errors produce NOT_LEADER_FOR_PARTITION,7,request_timed_out", brokers: 1)
            == .requestErrors(.produce, [.notLeaderForPartition, .requestTimedOut, .requestTimedOut]))
        #expect(try MockClusterFault.parse("errors OffsetCommit 16", brokers: 1) == .requestErrors(.offsetCommit, [.notCoordinator]))
        #expect(try MockClusterFault.parse("clear heartbeat", brokers: 1) == .clearRequestErrors(.heartbeat))
    }

    @Test func aTopicIsCreatedWithTheChosenPartitionCount() async throws {
        #expect(try MockClusterFault.parse("topic bench.jobs 24", brokers: 3)
            == .createTopic(name: "bench.jobs", partitions: 24, replicationFactor: 1))
        #expect(try MockClusterFault.parse("topic t 2 3", brokers: 3) == .createTopic(name: "t", partitions: 2, replicationFactor: 3))
        #expect(throws: MockClusterFault.ParseError.self) { try MockClusterFault.parse("topic t 0", brokers: 3) }
        #expect(throws: MockClusterFault.ParseError.self) { try MockClusterFault.parse("topic t 2 4", brokers: 3) }
        let cluster = try await SharedMockCluster.get()
        let name = SharedMockCluster.unique("fault-topic")
        cluster.apply(try MockClusterFault.parse("topic \(name) 7", brokers: Int32(cluster.brokerCount)))
        let admin = try KafkaTopicAdmin(configuration: SharedMockCluster.configuration(cluster))
        #expect(try await admin.partitionCount(of: name) == 7)
    }

    @Test(arguments: ["produce", "fetch", "offsetcommit", "heartbeat", "metadata", "joingroup", "syncgroup", "findcoordinator"])
    func everyDocumentedAPIIsKnown(name: String) throws {
        #expect(try MockClusterFault.parse("clear \(name)", brokers: 1) == .clearRequestErrors(MockClusterFault.apiNames[name]!))
    }

    @Test(arguments: [
        ("", "empty command"),
        ("down 0", "no broker '0': brokers are 1 to 3"),
        ("up 4", "no broker '4': brokers are 1 to 3"),
        ("down", "usage: down BROKER"),
        ("rtt 1 -5", "round-trip time '-5' is not 0 to 600000 ms"),
        ("leader t x 1", "partition 'x' is not a number from 0"),
        ("coordinator g 1 2", "usage: coordinator GROUP BROKER"),
    ])
    func malformedCommandsSayWhy(line: String, why: String) {
        #expect(throws: MockClusterFault.ParseError(why)) { try MockClusterFault.parse(line, brokers: 3) }
    }

    @Test func unknownWordsAreRefusedNamingThem() {
        for (line, word) in [("reboot 1", "'reboot'"), ("errors listoffsets 6", "'listoffsets'"),
                             ("errors fetch NOT_A_CODE", "'NOT_A_CODE'"), ("errors fetch 6,,7", "''"),
                             ("clear everything", "'everything'")] {
            #expect {
                try MockClusterFault.parse(line, brokers: 3)
            } throws: { error in
                (error as? MockClusterFault.ParseError)?.description.contains(word) == true
            }
        }
    }

    @Test func everyKindOfFaultIsAcceptedByALiveCluster() throws {
        let cluster = try MockKafkaCluster(brokers: 3)
        for line in ["down 3", "up 3", "rtt 2 10", "rtt 2 0", "leader t 0 2", "coordinator g 3",
                     "errors produce NOT_LEADER_FOR_PARTITION", "clear produce"] {
            cluster.apply(try MockClusterFault.parse(line, brokers: 3))
        }
    }
}
