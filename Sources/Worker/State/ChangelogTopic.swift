import KafkaIO

/// The topics at start (§4): created when missing and `kafka.createTopics` allows. The changelog (§4.1) gets as
/// many partitions as the jobs topic and compaction, and is then checked: durable state cannot work without it, so
/// unlike the other topics a missing or mismatched changelog stops the start, with a message naming both topics and
/// their counts.
enum ChangelogTopic {
    /// The settings the worker creates the changelog with; operators pre-creating it should use the same.
    static func settings() -> [String: String] {
        // Compaction keeps each batch's latest snapshot; the lag keeps a batch's recent history readable for a
        // worker catching up, and deleted batches' tombstones are kept a day so a store that was away sees them.
        ["cleanup.policy": "compact", "min.compaction.lag.ms": "60000", "delete.retention.ms": "86400000"]
    }

    /// Creates the worker's missing topics in one request when `kafka.createTopics` allows (a refusal is logged,
    /// not fatal: operators often pre-create them), then — with durable state — makes sure the changelog exists
    /// with the jobs topic's partition count, throwing a start-stopping failure when it cannot.
    static func provision(_ configuration: AttacheConfiguration, kafka: KafkaConfiguration, logger: Logger,
                          newTopicPartitions: Int) async throws {
        let jobs = configuration.kafka.jobsTopic
        let changelog = configuration.kafka.batchesTopic
        let durable = configuration.state.durable
        let admin = try KafkaTopicAdmin(configuration: kafka)
        if configuration.kafka.createTopics {
            let existingJobs = try? await admin.partitionCount(of: jobs, timeout: .seconds(5))
            var topics = [configuration.kafka.jobsTopic, configuration.kafka.eventsTopic, configuration.kafka.dlqTopic]
                + (configuration.messages.mode == .kafka ? [configuration.kafka.messagesTopic] : [])
            topics = topics.filter { $0 != jobs || existingJobs == .some(nil) }
            var requests = topics.map { NewTopic(name: $0, partitions: newTopicPartitions, replicationFactor: -1) }
            if durable {
                requests.append(NewTopic(name: changelog, partitions: (existingJobs ?? nil) ?? newTopicPartitions,
                                         replicationFactor: -1, config: settings()))
            }
            do {
                for result in try await admin.createTopics(requests, timeout: .seconds(5)) {
                    logger.debug("topic checked", ["topic": "\(result)"])
                }
            } catch {
                logger.warn("could not create topics; carrying on (they may be pre-created)", ["error": "\(error)"])
            }
        }
        guard durable else { return }
        // The jobs topic decides the count; a cluster that auto-creates topics creates it now if nobody did.
        guard let jobPartitions = try await admin.partitionCount(of: jobs, autoCreate: true) else {
            throw WorkerFailure(reason: "the jobs topic \(jobs) does not exist and could not be created, so the batch changelog " +
                                "\(changelog) cannot be matched to it")
        }
        // A cluster that creates topics on use (auto.create.topics.enable; librdkafka's mock, which has no CreateTopics
        // API) is let do so even with kafka.createTopics off: that is the cluster's policy, as it is for the jobs topic
        // the consumer subscribes to. A cluster that does not leaves the changelog missing, and the start stops.
        guard let partitions = try await admin.partitionCount(of: changelog, autoCreate: true) else {
            throw WorkerFailure(reason: "the batch changelog topic \(changelog) does not exist and could not be created " +
                                "(create it with \(jobPartitions) partitions, like \(jobs), and cleanup.policy=compact; " +
                                "or set state.durable=false to keep batches in memory only)")
        }
        guard partitions == jobPartitions else {
            throw WorkerFailure(reason: "the batch changelog topic \(changelog) has \(partitions) partitions but the jobs topic " +
                                "\(jobs) has \(jobPartitions): they must match, since changelog partition p holds the batches " +
                                "of jobs partition p")
        }
        logger.info("batch changelog checked", ["topic": changelog, "partitions": String(partitions)])
    }
}
