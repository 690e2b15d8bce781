import Testing
@testable import KafkaIO
import TestSupport

@Suite struct OffsetWatermarkTests {
    private func watermark(delivering offsets: some Sequence<Int64>) -> OffsetWatermark {
        var watermark = OffsetWatermark()
        for offset in offsets { watermark.delivered(offset) }
        return watermark
    }

    @Test func nothingDeliveredMeansNothingToCommit() {
        #expect(OffsetWatermark().commitPosition == nil)
    }

    @Test func deliveredButUnfinishedRecordsHoldThePositionAtTheFirstOne() {
        let watermark = watermark(delivering: 5...9)
        #expect(watermark.commitPosition == 5)
        #expect(watermark.pendingCount == 5)
    }

    @Test func inOrderCompletionAdvancesOnePastTheLastFinished() {
        var watermark = watermark(delivering: 0...3)
        watermark.finish(0)
        #expect(watermark.commitPosition == 1)
        watermark.finish(1)
        watermark.finish(2)
        watermark.finish(3)
        #expect(watermark.commitPosition == 4)
        #expect(watermark.pendingCount == 0)
    }

    @Test func outOfOrderCompletionStopsAtTheFirstUnfinishedOffset() {
        var watermark = watermark(delivering: 0...9)
        for offset: Int64 in [2, 5, 1, 7, 4] { watermark.finish(offset) }
        #expect(watermark.commitPosition == 0)
        watermark.finish(0)
        #expect(watermark.commitPosition == 3)
        watermark.finish(3)
        #expect(watermark.commitPosition == 6)
        watermark.finish(6)
        #expect(watermark.commitPosition == 8)
        #expect(watermark.pendingCount == 2)
    }

    @Test func gapsBetweenDeliveredOffsetsDoNotHoldTheWatermarkBack() {
        var watermark = watermark(delivering: [10, 11, 15, 16, 40])
        watermark.finish(10)
        watermark.finish(11)
        #expect(watermark.commitPosition == 15)
        watermark.finish(16)
        watermark.finish(15)
        #expect(watermark.commitPosition == 40)
        watermark.finish(40)
        #expect(watermark.commitPosition == 41)
    }

    @Test func finishingAnOffsetTwiceChangesNothingTheSecondTime() {
        var watermark = watermark(delivering: 0...2)
        #expect(apply(&watermark) { $0.finish(1) } == true)
        #expect(apply(&watermark) { $0.finish(1) } == false)
        #expect(watermark.commitPosition == 0)
        #expect(watermark.pendingCount == 2)
        watermark.finish(0)
        #expect(apply(&watermark) { $0.finish(0) } == false)
        #expect(watermark.commitPosition == 2)
    }

    @Test func redeliveredOrOlderOffsetsAreIgnored() {
        var watermark = watermark(delivering: 3...5)
        #expect(apply(&watermark) { $0.delivered(5) } == false)
        #expect(apply(&watermark) { $0.delivered(4) } == false)
        #expect(apply(&watermark) { $0.delivered(1) } == false)
        #expect(watermark.pendingCount == 3)
        for offset: Int64 in 3...5 { watermark.finish(offset) }
        #expect(watermark.commitPosition == 6)
    }

    @Test func finishingAnOffsetThatWasNeverDeliveredIsRefused() {
        var watermark = watermark(delivering: [0, 2])
        #expect(apply(&watermark) { $0.finish(1) } == false)
        #expect(apply(&watermark) { $0.finish(7) } == false)
        #expect(apply(&watermark) { $0.finish(-1) } == false)
        #expect(watermark.commitPosition == 0)
    }

    @Test func finishingBehindTheWatermarkIsRefused() {
        var watermark = watermark(delivering: 0...4)
        for offset: Int64 in 0...2 { watermark.finish(offset) }
        #expect(apply(&watermark) { $0.finish(1) } == false)
        #expect(watermark.commitPosition == 3)
    }

    @Test func resetForgetsDeliveriesAsAfterReassignment() {
        var watermark = watermark(delivering: 0...4)
        watermark.finish(0)
        watermark.reset()
        #expect(watermark.commitPosition == nil)
        #expect(watermark.pendingCount == 0)
        #expect(apply(&watermark) { $0.delivered(2) } == true)
        #expect(watermark.commitPosition == 2)
        watermark.finish(2)
        #expect(watermark.commitPosition == 3)
    }

    @Test func deliveryAfterEverythingFinishedStartsANewPendingRun() {
        var watermark = watermark(delivering: 0...1)
        watermark.finish(0)
        watermark.finish(1)
        #expect(watermark.commitPosition == 2)
        watermark.delivered(5)
        #expect(watermark.commitPosition == 5)
        watermark.finish(5)
        #expect(watermark.commitPosition == 6)
    }

    @Test func aLongShuffledRunEndsOnePastTheLastOffsetAndKeepsTheContiguousPrefixOnTheWay() {
        var generator = SplitMix64(seed: 42)
        let count: Int64 = 20_000
        var watermark = watermark(delivering: 0..<count)
        var order = Array(0..<count)
        order.shuffle(using: &generator)
        var finished = Set<Int64>()
        for (step, offset) in order.enumerated() {
            watermark.finish(offset)
            finished.insert(offset)
            if step % 997 == 0 {
                var expected: Int64 = 0
                while finished.contains(expected) { expected += 1 }
                #expect(watermark.commitPosition == expected)
            }
        }
        #expect(watermark.commitPosition == count)
        #expect(watermark.pendingCount == 0)
    }
}

/// Runs a mutating call outside `#expect`, whose autoclosure cannot mutate.
private func apply(_ watermark: inout OffsetWatermark, _ call: (inout OffsetWatermark) -> Bool) -> Bool {
    call(&watermark)
}
