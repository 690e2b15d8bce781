import OperatorTools
import Testing

/// `--until-idle`: done when the changelog shows the batch quiescent and its events up to that snapshot were seen.
@Suite struct IdleTrackerTests {
    private static func snapshot(quiescent: Bool, sequence: UInt64, applied: Int64? = 10, succeeded: Bool = true) -> IdleTracker.Snapshot {
        IdleTracker.Snapshot(quiescent: quiescent, sequence: sequence, appliedThrough: applied, succeeded: succeeded)
    }

    @Test func aBatchIsDoneOnceItsQuiescentSnapshotsEventsWereSeen() {
        var tracker = IdleTracker()
        tracker.take(snapshot: Self.snapshot(quiescent: false, sequence: 3), of: "b", beforeStart: false)
        #expect(!tracker.isDone("b"))
        tracker.take(snapshot: Self.snapshot(quiescent: true, sequence: 7), of: "b", beforeStart: false)
        tracker.take(eventOf: "b", sequence: 6)
        #expect(!tracker.isDone("b"), "the events up to the snapshot are not all shown yet")
        tracker.take(eventOf: "b", sequence: 7)
        #expect(tracker.isDone("b") && tracker.succeeded("b"))
    }

    @Test func aBatchQuiescentBeforeTheWatchIsDoneAtOnceUnlessItMustApplyANewJob() {
        var tracker = IdleTracker()
        tracker.take(snapshot: Self.snapshot(quiescent: true, sequence: 9, applied: 4, succeeded: false), of: "old", beforeStart: true)
        #expect(tracker.isDone("old") && !tracker.succeeded("old"))
        tracker.require("old", applied: 12)
        #expect(!tracker.isDone("old"), "the job just produced is not applied yet")
        tracker.take(snapshot: Self.snapshot(quiescent: true, sequence: 11, applied: 12), of: "old", beforeStart: false)
        #expect(!tracker.isDone("old"))
        tracker.take(eventOf: "old", sequence: 11)
        #expect(tracker.isDone("old") && tracker.succeeded("old"))
    }

    @Test func aClearedBatchIsDoneButNotASuccess() {
        var tracker = IdleTracker()
        tracker.take(snapshot: Self.snapshot(quiescent: false, sequence: 2), of: "c", beforeStart: false)
        tracker.take(snapshot: nil, of: "c", beforeStart: false)
        #expect(tracker.isDone("c") && !tracker.succeeded("c"))
        #expect(!tracker.isDone("unknown"))
    }
}
