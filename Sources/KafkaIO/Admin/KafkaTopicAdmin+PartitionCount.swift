import CRdKafka
import Foundation

extension KafkaTopicAdmin {
    /// The number of partitions of `topic`, or `nil` when the topic does not exist.
    ///
    /// Without `autoCreate` the lookup never creates the topic: it reads the metadata of all topics
    /// (`rd_kafka_metadata` with `all_topics`). A request naming the topic is not safe for this — a broker answering
    /// Metadata below v4 has no `AllowAutoTopicCreation` flag to look at and auto-creates the topic, and librdkafka
    /// 2.0.2's mock answers only up to v2 (measured: the named request created the topic even from a consumer with
    /// `allow.auto.create.topics=false`).
    ///
    /// With `autoCreate` the request names the topic and allows auto-creation, so a broker with
    /// `auto.create.topics.enable` (and both librdkafka mocks, 2.0.2 and 2.16) creates a missing topic with its
    /// default partition count and the answer counts them; `nil` then means the broker does not auto-create topics
    /// (or the raw property `allow.auto.create.topics=false` turned it off for this client). This is the fallback for
    /// clusters without the CreateTopics API, such as the mocks.
    ///
    /// A topic the broker is still creating (no leader yet) is asked about again until `timeout`. The call blocks a
    /// dedicated thread, never the cooperative pool.
    ///
    /// - Throws: ``KafkaError`` when no broker answers within `timeout` (`_TIMED_OUT`) or the broker refuses to
    ///   describe the topic (e.g. `TOPIC_AUTHORIZATION_FAILED`).
    public func partitionCount(of topic: String, autoCreate: Bool = false,
                               timeout: Duration = .seconds(10)) async throws -> Int? {
        let client = self.client
        return try await DedicatedThread.run(name: "kafka-topic-metadata") {
            Self.partitionCount(of: topic, autoCreate: autoCreate, client: client, deadline: .now + timeout)
        }
    }

    /// Asks until the answer is final or `deadline` passes; runs on a dedicated thread.
    private static func partitionCount(of topic: String, autoCreate: Bool, client: RDKafkaClient,
                                       deadline: ContinuousClock.Instant) -> Result<Int?, KafkaError> {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                return .failure(KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT,
                                           detail: "topic \(topic) still has no partitions with a leader"))
            }
            switch lookUp(topic, autoCreate: autoCreate, client: client,
                          timeoutMilliseconds: max(remaining.clampedMilliseconds, 1)) {
            case .partitions(let count): return .success(count)
            case .missing: return .success(nil)
            case .failed(let error): return .failure(error)
            case .pending: Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    /// One metadata request: all topics, or only `topic` when auto-creation is wanted.
    private static func lookUp(_ topic: String, autoCreate: Bool, client: RDKafkaClient,
                               timeoutMilliseconds: Int32) -> TopicLookup {
        client.withClientPointer { handle in
            // The topic handle is what makes the request name the topic (and so allow its creation).
            let named = autoCreate ? rd_kafka_topic_new(handle, topic, nil) : nil
            defer { if let named { rd_kafka_topic_destroy(named) } }
            if autoCreate, named == nil { return .failed(KafkaError(rd_kafka_last_error())) }
            var answer: UnsafePointer<rd_kafka_metadata>?
            let error = rd_kafka_metadata(handle, autoCreate ? 0 : 1, named, &answer, timeoutMilliseconds)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR, let answer else { return .failed(KafkaError(error)) }
            defer { rd_kafka_metadata_destroy(answer) }
            let topics = UnsafeBufferPointer(start: answer.pointee.topics, count: Int(answer.pointee.topic_cnt))
            guard let entry = topics.first(where: { String(cString: $0.topic) == topic }) else {
                return TopicLookup.classify(listed: false, libraryCode: 0, partitionCount: 0)
            }
            return TopicLookup.classify(listed: true, libraryCode: entry.err.rawValue,
                                        partitionCount: Int(entry.partition_cnt))
        }
    }
}
