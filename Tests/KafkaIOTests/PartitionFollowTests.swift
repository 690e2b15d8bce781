import Foundation
import Testing
import TestSupport
import KafkaIO

/// `KafkaPartitionReader.follow`: records already there and records appended later, until the task is cancelled.
@Suite(.timeLimit(.minutes(2))) struct PartitionFollowTests {
    /// Follows partition 0 of `topic` in a task; the values it hands over arrive on the stream.
    private func follow(_ reader: KafkaPartitionReader, _ topic: String, from offset: Int64?) -> (Task<Void, any Error>, AsyncStream<String>) {
        let (values, continuation) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            try await reader.follow(topic: topic, partition: 0, from: offset) { records in
                for record in records { continuation.yield(String(decoding: record.value ?? Data(), as: UTF8.self)) }
            }
        }
        return (task, values)
    }

    /// The next `count` values (at most 60 s: then an issue is recorded). One stream, iterated by one call at a time.
    private func next(_ count: Int, from values: AsyncStream<String>, sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
        await waitFor("\(count) values", timeout: .seconds(60), sourceLocation: sourceLocation) {
            var iterator = values.makeAsyncIterator()
            var taken: [String] = []
            while taken.count < count, let value = await iterator.next() { taken.append(value) }
            return taken
        } ?? []
    }

    @Test func fromAnOffsetItHandsOverWhatIsThereAndWhatComesLater() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("follow-offset")
        _ = try await PartitionReaderTests.produce((0..<3).map { Data("old-\($0)".utf8) }, to: topic, partition: 0, cluster: cluster)
        let (task, values) = follow(try PartitionReaderTests.reader(cluster), topic, from: 1)
        #expect(await next(2, from: values) == ["old-1", "old-2"])
        _ = try await PartitionReaderTests.produce([Data("new-0".utf8), Data("new-1".utf8)], to: topic, partition: 0, cluster: cluster)
        #expect(await next(2, from: values) == ["new-0", "new-1"])
        task.cancel()
        await #expect(throws: CancellationError.self) { try await waitFor("task to end") { await task.result }?.get() }
    }

    @Test func fromTheEndItHandsOverOnlyWhatComesLater() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("follow-end")
        _ = try await PartitionReaderTests.produce([Data("before".utf8)], to: topic, partition: 0, cluster: cluster)
        let reader = try PartitionReaderTests.reader(cluster)
        // The end offset, as TopicFollower fixes it before it reports the follow started.
        guard case .aheadOfTopic(let end) = try await reader.readToEnd(topic: topic, partition: 0, from: .max, handle: { _ in }) else {
            Issue.record("a read from past the end answers with the end offset")
            return
        }
        #expect(end == 1)
        let (task, values) = follow(reader, topic, from: end)
        _ = try await PartitionReaderTests.produce([Data("after".utf8)], to: topic, partition: 0, cluster: cluster)
        #expect(await next(1, from: values) == ["after"])
        task.cancel()
        await waitFor("the follow to end") { _ = try? await task.value }
    }
}
