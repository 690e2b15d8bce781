import Foundation
import KafkaIO
import TestSupport
import Testing

/// A fatal error ends the worker (DESIGN §4 *Commit only what is settled and recorded*): a worker whose events can
/// no longer be delivered logs it, exits non-zero within `worker.shutdownGrace` by itself — no signal, no wedged
/// process holding its partitions — and commits nothing past the lost event.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FatalExitTests {
    /// The events topic's partition leads on this broker, and only it refuses produce requests; the jobs topic and
    /// the changelog lead elsewhere, so the job arrives and the worker's restore and snapshots are unaffected.
    static let refusingBroker: Int32 = 3
    static let grace: Duration = .seconds(6)

    @Test func aWorkerWhoseEventsCannotBeDeliveredExitsNonZeroWithinItsGraceAndCommitsNothing() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let cluster = try await MockKafkaCluster.start(brokers: 3)
        let run = String(UUID().uuidString.prefix(6)).lowercased()
        let jobs = "fatal-\(run).jobs", events = "fatal-\(run).events", group = "fatal-\(run)"
        for topic in [jobs, EndToEndEnvironment.changelog(of: jobs), events] {
            _ = try await cluster.createTopic(topic, partitions: 1)
        }
        cluster.setPartitionLeader(topic: jobs, partition: 0, broker: 1)
        cluster.setPartitionLeader(topic: EndToEndEnvironment.changelog(of: jobs), partition: 0, broker: 1)
        cluster.setPartitionLeader(topic: events, partition: 0, broker: Self.refusingBroker)

        let worker = try environment.startWorker(name: "worker-fatal-\(run)", group: group, jobsTopic: jobs, eventsTopic: events,
                                                 brokers: cluster.bootstrapServers,
                                                 extra: ["ATTACHE_WORKER_SHUTDOWN_GRACE": "\(Self.grace.components.seconds)s"])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        _ = try await eventually("the worker to restore its partition", timeout: .seconds(60)) {
            worker.standardError.contains("partition restored") ? true : nil
        }
        // Every produce the events topic's leader receives from now on is refused for good, as an event too large for
        // the broker is: the producer gives the events up, and the worker can vouch for nothing more.
        cluster.pushRequestErrors(.produce, Array(repeating: .messageTooLarge, count: 500), onBroker: Self.refusingBroker)
        let batchId = "fatal-\(run)"
        try await Kcat.produce(brokers: cluster.bootstrapServers, topic: jobs, [(key: batchId, value: Jobs.upload(batchId: batchId, files: [
            Jobs.inline("f", name: "photo.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 2048, seed: 1)),
        ], send: "none"))])

        let failedAt = try await eventually("the worker to report the lost events as fatal", timeout: .seconds(60), every: .milliseconds(50)) {
            worker.standardError.contains("fatal: stopping") ? ContinuousClock.now : nil
        }
        // No signal: the fatal error alone must end the process, within the grace (and the time it takes to exit).
        let status = await worker.waitForExit(timeout: Self.grace + .seconds(3))
        let waited = failedAt.duration(to: .now)
        #expect(status != nil, "still running \(waited) after the fatal error; log:\n\(worker.standardError.suffix(4000))")
        #expect(status.map { $0 != 0 } ?? false, "a fatal stop exits non-zero, not \(String(describing: status))")
        #expect(worker.standardError.contains("worker failed"))

        // Nothing past the lost events was committed: the job is replayed by the partition's next owner.
        let reader = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, groupID: group),
                                       topics: [jobs], options: KafkaConsumerOptions(commitInterval: nil))
        let partition = TopicPartition(jobs, 0)
        let committed = try await reader.committedOffsets(for: [partition], timeout: .seconds(20))
        #expect((committed[partition] ?? 0) == 0, "the job at offset 0 stays uncommitted, not \(committed)")
        await waitFor("the reader to leave the group") { try? await reader.close() }
    }
}
