import Foundation
import KafkaIO
import Records
import UploadEngine

/// Turns records of the three topics into the model's inputs: CloudEvents, decoded jobs and controls, dead letters.
/// Pure (records in, model changes out), so the mapping is tested without Kafka.
public struct FeedRecordFolder: Sendable {
    public let topics: FeedTopics
    /// The worker's job decoder with the configured limits: a job it refuses as a whole is no batch's, here either.
    public let decoder: JobDecoder
    /// Records older than this (their Kafka timestamp) are skipped (`--since`).
    public let since: Date?

    public init(topics: FeedTopics, limits: UploadLimits, since: Date?) {
        self.topics = topics
        decoder = JobDecoder(limits: limits)
        self.since = since
    }

    /// Folds one record into the model; `readAt` stands in for a record without a timestamp.
    public func fold(_ record: KafkaRecord, into model: inout DashboardModel, readAt: Date) {
        let time = record.timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        if let since, let time, time < since { return }
        switch record.topic {
        case topics.events:
            guard let value = record.value, let event = WatchedEvent(json: value) else { return }
            model.take(event: event, readAt: readAt)
        case topics.jobs:
            guard let value = record.value else { return }
            let provenance = JobDecoder.Provenance(topic: record.topic, partition: record.partition, offset: record.offset,
                                                   key: record.keyString)
            // A record keyed otherwise than its batch id is not applied where it is: its re-keyed copy is, and counts.
            guard case .success(let decoded) = decoder.decode(value, headers: [], from: provenance), !decoded.needsRekey else { return }
            model.take(command: decoded.command, at: time ?? readAt)
        case topics.deadLetters:
            model.take(deadLetter: DeadLetter(record), readAt: readAt)
        default:
            return
        }
    }
}
