import Testing
@testable import KafkaIO

@Suite struct PartitionReadProgressTests {
    @Test func aReadWithGapsEndsAtTheLastOffsetBelowTheEndNotAfterACountOfRecords() {
        var progress = PartitionReadProgress(startOffset: 0, endOffset: 10)
        // Compaction left 0, 1, 5 and 9.
        let handed = [0, 1, 5].map { progress.take($0) }
        let completeBeforeTheLast = progress.isComplete
        let last = progress.take(9)
        #expect(handed == [true, true, true] && last)
        #expect(!completeBeforeTheLast)
        #expect(progress.isComplete)
        #expect(progress.recordsRead == 4)
        #expect(progress.nextOffset == 10)
    }

    @Test func aReadWhoseLastOffsetsAreGoneEndsOnTheEndOfPartitionReport() {
        var progress = PartitionReadProgress(startOffset: 3, endOffset: 12)
        let handed = [3, 7].map { progress.take($0) }
        // librdkafka reports the end at the high watermark it fetched up to; one below the captured end does not count.
        progress.reachedEnd(at: 11)
        let completeAtEleven = progress.isComplete
        progress.reachedEnd(at: 12)
        #expect(handed == [true, true])
        #expect(!completeAtEleven)
        #expect(progress.isComplete)
        #expect(progress.recordsRead == 2)
    }

    @Test func recordsAppendedAfterTheReadBeganAreNotHandedOverAndEndIt() {
        var progress = PartitionReadProgress(startOffset: 0, endOffset: 5)
        let handed = [2, 6, 4].map { progress.take($0) }
        #expect(handed == [true, false, false])
        #expect(progress.isComplete)
        #expect(progress.recordsRead == 1)
    }

    @Test func repeatedOrOlderOffsetsAreDropped() {
        var progress = PartitionReadProgress(startOffset: 10, endOffset: 20)
        let handed = [9, 10, 10].map { progress.take($0) }
        #expect(handed == [false, true, false])
        #expect(progress.recordsRead == 1)
    }

    @Test func anEmptyRangeIsCompleteAtOnce() {
        #expect(PartitionReadProgress(startOffset: 7, endOffset: 7).isComplete)
    }

    @Test func aReadToTheEndStartsAtTheLogStartWhenItMovedAndIsAheadPastTheEnd() throws {
        let moved = try #require(PartitionReadProgress.toEnd(from: 2, low: 40, high: 100))
        #expect(moved.startOffset == 40 && moved.endOffset == 100)
        let middle = try #require(PartitionReadProgress.toEnd(from: 60, low: 40, high: 100))
        #expect(middle.startOffset == 60)
        let upToDate = try #require(PartitionReadProgress.toEnd(from: 100, low: 40, high: 100))
        #expect(upToDate.isComplete)
        #expect(PartitionReadProgress.toEnd(from: 101, low: 40, high: 100) == nil)
    }

    @Test func aSingleRecordReadIsEmptyOutsideTheLogAndEndsAtTheFirstRecordFetched() {
        #expect(PartitionReadProgress.single(at: 3, low: 5, high: 9).isComplete)
        #expect(PartitionReadProgress.single(at: 9, low: 5, high: 9).isComplete)
        var present = PartitionReadProgress.single(at: 6, low: 5, high: 9)
        let presentHanded = present.take(6)
        var compacted = PartitionReadProgress.single(at: 6, low: 5, high: 9)
        let compactedHanded = compacted.take(8)
        #expect(presentHanded && present.isComplete)
        #expect(!compactedHanded && compacted.isComplete && compacted.recordsRead == 0)
    }
}
