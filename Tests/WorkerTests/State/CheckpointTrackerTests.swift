import Testing
@testable import Worker

@Suite struct CheckpointTrackerTests {
    @Test func theCheckpointMovesOnlyOverAContiguousRunOfAppliedOffsets() {
        var tracker = CheckpointTracker(next: 10)
        #expect(tracker.advance(past: 10) == 11)
        #expect(tracker.advance(past: 12) == 11, "a gap at 11 (another writer's record) holds it back")
        #expect(tracker.advance(past: 13) == 11)
        #expect(tracker.advance(past: 11) == 14, "closing the gap moves it past everything applied beyond")
        #expect(tracker.advance(past: 5) == 14, "an offset below it changes nothing")
    }
}
