@testable import Dashboard
import Foundation
import Testing

/// `dashboard.maxBatches`: only the batches heard from most recently are kept.
@Suite struct BatchEvictionTests {
    @Test func beyondTheLimitTheBatchHeardFromLeastRecentlyIsForgotten() {
        var model = DashboardModel(limits: DashboardLimits(maxBatches: 3))
        for batch in ["a", "b", "c"] { model.take(event: EventRecords.uploaded(batch, "f", size: 1), readAt: Date()) }
        _ = model.takeChanges()
        // `a` is touched again, so `b` is now the stalest.
        model.take(event: EventRecords.rejected("a", "g", code: "ERR_FILE_DATA_EMPTY"), readAt: Date())
        model.take(event: EventRecords.uploaded("d", "f", size: 1), readAt: Date())
        #expect(Set(model.batches.keys) == ["a", "c", "d"])
        #expect(model.evicted == 1)
        let changes = model.takeChanges()
        #expect(changes.removed == ["b"] && changes.batches == ["a", "d"])
    }

    @Test func holdsNoMoreThanTheLimitOverManyBatches() {
        var model = DashboardModel(limits: DashboardLimits(maxBatches: 50))
        for index in 0..<1000 { model.take(event: EventRecords.uploaded("b\(index)", "f", size: 1), readAt: Date()) }
        #expect(model.batches.count == 50)
        #expect(Set(model.batches.keys) == Set((950..<1000).map { "b\($0)" }))
    }

    @Test func recencyCompactsWhatItLeftBehindAndKeepsTheOrder() {
        var recency = BatchRecency()
        for round in 0..<200 { for batch in ["x", "y", "z"] { recency.touch(round % 2 == 0 ? batch : String(batch.reversed())) } }
        recency.touch("x")
        #expect(recency.order == ["y", "z", "x"])
        #expect(recency.popStalest() == "y")
        #expect(recency.count == 2)
    }
}
