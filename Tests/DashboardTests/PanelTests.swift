@testable import Dashboard
import Foundation
import Testing

/// The panels: errors by code per minute, throughput windows per worker, workers seen.
@Suite struct PanelTests {
    private let minute: Int64 = 60_000

    @Test func errorsAreCountedByCodeInMinuteBuckets() throws {
        var model = DashboardModel(limits: DashboardLimits())
        for (offset, code) in [(0, "ERR_A"), (10_000, "ERR_A"), (70_000, "ERR_B"), (75_000, "ERR_A")] {
            model.take(event: EventRecords.rejected("b", "f\(offset)", code: code, at: Int64(offset)), readAt: Date())
        }
        let errors = model.errors
        #expect(errors.totals == ["ERR_A": 3, "ERR_B": 1])
        let first = EventRecords.start / minute
        #expect(errors.buckets[first] == ["ERR_A": 2])
        #expect(errors.buckets[first + 1] == ["ERR_A": 1, "ERR_B": 1])
        #expect(errors.latest.map(\.code) == ["ERR_A", "ERR_A", "ERR_B", "ERR_A"])
        #expect(errors.kinds["ERR_A"] == .rejected)
    }

    @Test func minuteBucketsOlderThanAnHourBeforeTheNewestAreDropped() {
        var tally = ErrorTally()
        let limits = DashboardLimits()
        let note = { (time: Int64) in ProblemNote(kind: .failed, time: time, batchId: "b", subject: "f", code: "ERR_X", message: "", willRetry: false, source: nil) }
        tally.take(note(0), limits: limits)
        tally.take(note(30 * minute), limits: limits)
        tally.take(note(61 * minute), limits: limits)
        #expect(tally.buckets.keys.sorted() == [30, 61])
        // A late one, older than the window, is counted in the totals only.
        tally.take(note(minute), limits: limits)
        #expect(tally.buckets.keys.sorted() == [30, 61] && tally.totals["ERR_X"] == 4)
    }

    @Test func codesBeyondTheLimitCountAsOtherAndTheLatestListIsBounded() {
        var limits = DashboardLimits()
        limits.errorCodes = 2
        limits.latestProblems = 3
        var tally = ErrorTally()
        for (index, code) in ["ERR_A", "ERR_B", "ERR_C", "ERR_D", "ERR_A"].enumerated() {
            tally.take(ProblemNote(kind: .rejected, time: Int64(index), batchId: "b", subject: "f", code: code, message: "",
                                   willRetry: false, source: nil), limits: limits)
        }
        #expect(tally.totals == ["ERR_A": 2, "ERR_B": 1, "other": 2])
        #expect(tally.latest.map(\.code) == ["ERR_C", "ERR_D", "ERR_A"])
    }

    @Test func throughputCountsProgressDeltasAndStoredFilesPerWorkerInTenSecondBuckets() throws {
        var model = DashboardModel(limits: DashboardLimits())
        model.take(event: EventRecords.progress("b", "f", loaded: 300, total: 1000, at: 1_000, source: "attache/w1"), readAt: Date())
        model.take(event: EventRecords.progress("b", "f", loaded: 800, total: 1000, at: 12_000, source: "attache/w1"), readAt: Date())
        model.take(event: EventRecords.uploaded("b", "f", size: 1000, at: 13_000, source: "attache/w1"), readAt: Date())
        model.take(event: EventRecords.uploaded("c", "g", size: 50, at: 13_000, source: "attache/w2"), readAt: Date())
        let bucket = EventRecords.start / ThroughputWindow.bucketMilliseconds
        let w1 = try #require(model.throughput.sources["w1"])
        #expect(w1[bucket]?.bytes == 300 && w1[bucket]?.files == 0)
        #expect(w1[bucket + 1]?.bytes == 700 && w1[bucket + 1]?.files == 1)
        #expect(model.throughput.sources["w2"]?[bucket + 1]?.bytes == 50)
        let rate = model.throughput.rate(of: "w1", over: 60, endingAt: EventRecords.start + 20_000)
        #expect(rate.files == 1.0 / 60 && rate.bytes == 1000.0 / 60)
    }

    @Test func throughputKeepsFifteenMinutesOfBuckets() {
        var window = ThroughputWindow()
        for index in 0..<200 { window.add(source: "w", at: Int64(index) * ThroughputWindow.bucketMilliseconds, files: 1, bytes: 1) }
        #expect(window.sources["w"]?.count == 90)
        #expect(window.sources["w"]?.keys.min() == 110)
    }

    @Test func workersSeenKeepFirstAndLastTimesAndTheMostRecentWithinTheLimit() throws {
        var roster = WorkerRoster()
        #expect(roster.saw("w1", at: 100, limit: 2) == nil)
        #expect(roster.saw("w2", at: 150, limit: 2) == nil)
        #expect(roster.saw("w1", at: 300, limit: 2) == nil)
        #expect(roster.saw("w1", at: 50, limit: 2) == nil, "an event read late")
        let w1 = try #require(roster.workers["w1"])
        #expect(w1.firstSeen == 50 && w1.lastSeen == 300 && w1.events == 3)
        #expect(roster.saw("w3", at: 400, limit: 2) == "w2")
        #expect(Set(roster.workers.keys) == ["w1", "w3"])
    }

    @Test func theModelNamesWorkersWithoutTheSourcePrefix() {
        var model = DashboardModel(limits: DashboardLimits())
        model.take(event: EventRecords.uploaded("b", "f", size: 1, source: "attache/worker-7"), readAt: Date())
        #expect(Array(model.workers.workers.keys) == ["worker-7"])
    }
}
