import KafkaIO
import Testing
@testable import Worker

/// The metrics alerts and the runbook lean on (`docs/operations.md#metrics-for-alerts-and-recovery`): per-partition
/// commits and lag that follow the assignment, restores, and health.
@Suite struct RecoveryMetricsTests {
    private struct Failure: Error {}

    private static func progress(_ partition: Int32, committed: Int64?, end: Int64?) -> PartitionProgress {
        PartitionProgress(partition: TopicPartition("attache.jobs", partition), committed: committed, end: end)
    }

    private static func lines(_ registry: MetricsRegistry, _ family: String) -> [String] {
        registry.render().split(separator: "\n").map(String.init).filter { $0.hasPrefix(family + "{") }
    }

    @Test func partitionGaugesListExactlyTheOwnedPartitions() {
        let metrics = WorkerMetrics()
        metrics.refresh(ScrapeReading(partitions: [Self.progress(0, committed: 40, end: 45), Self.progress(3, committed: 7, end: 7)]))
        #expect(Self.lines(metrics.registry, WorkerMetrics.partitionLag) == [
            #"attache_partition_lag{partition="0"} 5"#, #"attache_partition_lag{partition="3"} 0"#,
        ])
        #expect(Self.lines(metrics.registry, WorkerMetrics.partitionCommitted) == [
            #"attache_partition_committed_offset{partition="0"} 40"#, #"attache_partition_committed_offset{partition="3"} 7"#,
        ])
        // Partition 0 handed over, 5 taken on but not fetched yet: no stale series, no made-up one.
        metrics.refresh(ScrapeReading(partitions: [Self.progress(3, committed: 9, end: 12), Self.progress(5, committed: nil, end: nil)]))
        #expect(Self.lines(metrics.registry, WorkerMetrics.partitionLag) == [#"attache_partition_lag{partition="3"} 3"#])
        #expect(Self.lines(metrics.registry, WorkerMetrics.partitionEnd) == [#"attache_partition_end_offset{partition="3"} 12"#])
        metrics.refresh(ScrapeReading())
        #expect(Self.lines(metrics.registry, WorkerMetrics.partitionLag).isEmpty)
        #expect(metrics.registry.render().contains("# TYPE attache_partition_lag gauge"), "the family stays declared")
        #expect(!metrics.registry.render().contains("\nattache_partition_lag "), "with no partition to speak of, no series")
    }

    @Test func healthAndDeliveryGaugesFollowTheReading() {
        let metrics = WorkerMetrics()
        metrics.refresh(ScrapeReading(eventsDelivered: 12, eventsPending: 3, snapshotsPending: 2, healthy: true, ready: false))
        let registry = metrics.registry
        #expect(registry.value(WorkerMetrics.eventsDelivered) == 12 && registry.value(WorkerMetrics.eventsPending) == 3)
        #expect(registry.value(WorkerMetrics.snapshotsPending) == 2)
        #expect(registry.value(WorkerMetrics.healthy) == 1 && registry.value(WorkerMetrics.ready) == 0)
        metrics.refresh(ScrapeReading(healthy: false, ready: false))
        #expect(registry.value(WorkerMetrics.healthy) == 0)
    }

    @Test func aRestoreIsUnderWayWhileItRunsAndTimedWhenItCompletes() async throws {
        let metrics = WorkerMetrics()
        let registry = metrics.registry
        let read = await metrics.timingRestore { () async -> Int in
            #expect(registry.value(WorkerMetrics.restoring) == 1)
            return 42
        }
        #expect(read == 42 && registry.value(WorkerMetrics.restoring) == 0)
        #expect(registry.value(WorkerMetrics.restores, labels: ["outcome": "restored"]) == 1)
        #expect(registry.render().contains("attache_changelog_restore_duration_seconds_count 1"))
        await #expect(throws: Failure.self) { try await metrics.timingRestore { throw Failure() } }
        #expect(registry.value(WorkerMetrics.restoring) == 0, "a failed restore is no longer under way")
        #expect(registry.value(WorkerMetrics.restores, labels: ["outcome": "restored"]) == 1)
        metrics.restoreFailed()
        #expect(registry.value(WorkerMetrics.restores, labels: ["outcome": "failed"]) == 1)
    }

    @Test func storeFailuresAreCountedByOperation() {
        let metrics = WorkerMetrics()
        metrics.storeFailed(.write)
        metrics.storeFailed(.write)
        metrics.storeFailed(.open)
        #expect(metrics.registry.value(WorkerMetrics.storeErrors, labels: ["operation": "write"]) == 2)
        #expect(metrics.registry.value(WorkerMetrics.storeErrors, labels: ["operation": "open"]) == 1)
    }
}

@Suite struct LabelDomainTests {
    @Test(arguments: ["0", "7", "99999"]) func partitionNumbersKeepTheirOwnSeries(value: String) {
        #expect(WorkerMetrics.LabelValues.partitions.admits(value))
    }

    @Test(arguments: ["100000", "-1", "07", "+7", "7 ", "", "seven", "1e3"]) func anythingElseIsOther(value: String) {
        #expect(!WorkerMetrics.LabelValues.partitions.admits(value))
    }

    @Test func replacingAFamilyKeepsItsBoundsAndLeavesOtherFamiliesAlone() {
        let registry = MetricsRegistry()
        registry.declare("t_gauge", .gauge, help: "A gauge.", labels: ["partition": .numbers(below: 4)])
        registry.declare("t_other", .gauge, help: "Another.")
        registry.set("t_other", 9)
        registry.replace("t_gauge", with: [(["partition": "1"], 5), (["partition": "12"], 6)])
        registry.replace("t_gauge", with: [(["partition": "2"], 7)])
        #expect(registry.render() == """
        # HELP t_gauge A gauge.
        # TYPE t_gauge gauge
        t_gauge{partition="2"} 7
        # HELP t_other Another.
        # TYPE t_other gauge
        t_other 9

        """)
    }
}
