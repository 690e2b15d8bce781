import Foundation
import KafkaIO
import Records

/// Reads the dashboard's topics into its hub: each topic from its start up to the end offset it has now (the
/// history, folded as it streams in, never held), then — once all three were read so far — everything appended
/// after, live. A topic that does not exist yet is followed from its beginning once it does.
public struct DashboardFeed: Sendable {
    public let kafka: KafkaConfiguration
    public let folder: FeedRecordFolder
    public let hub: DashboardHub

    public init(kafka: KafkaConfiguration, folder: FeedRecordFolder, hub: DashboardHub) {
        self.kafka = kafka
        self.folder = folder
        self.hub = hub
    }

    /// Runs until cancelled (`CancellationError`) or a read fails for good.
    ///
    /// - Parameter waiting: told about each topic that does not exist yet.
    public func run(waiting: @Sendable (String) -> Void = { _ in }) async throws {
        var sources: [TopicFollower.Source] = []
        for topic in folder.topics.all {
            do {
                let ends = try await TopicSnapshot.read(topic, kafka: kafka) { records in fold(records) }
                sources.append(TopicFollower.Source(topic: topic, start: .offsets(ends)))
            } catch is TopicSnapshot.TopicMissing {
                sources.append(TopicFollower.Source(topic: topic, start: .beginning))
            }
        }
        hub.apply { $0.caughtUp() }
        for try await element in TopicFollower.follow(sources, kafka: kafka) {
            switch element {
            case .record(let record): fold([record])
            case .waiting(let topic): waiting(topic)
            case .started: break
            }
        }
    }

    private func fold(_ records: [KafkaRecord]) {
        let now = hub.now
        hub.apply { model in
            for record in records { folder.fold(record, into: &model, readAt: now) }
        }
    }
}
