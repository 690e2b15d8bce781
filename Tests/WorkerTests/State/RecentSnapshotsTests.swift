import Foundation
import Testing
@testable import Worker

/// The idle batches kept encoded: bounded by the limit, least recently recorded leaving first (an eighth at a time),
/// taken out on use, and holes never growing the slabs past twice what they hold.
@Suite struct RecentSnapshotsTests {
    /// Padded with printable bytes: sizes are those of snapshot JSON, which packs no bigger than it is.
    private static func bytes(_ text: String, size: Int = 0) -> Data { Data(text.utf8) + Data(repeating: UInt8(ascii: "x"), count: size) }

    @Test func theCacheNeverHoldsMoreThanItsLimitAndTheLeastRecentlyRecordedLeaveFirst() {
        var cache = RecentSnapshots(limit: 80)
        for index in 0..<1000 {
            cache.put(Self.bytes("s\(index)"), batchId: "b\(index)", partition: 0)
            #expect(cache.count <= 80)
        }
        #expect(cache.count >= 70, "an eighth leaves at a time, not the whole cache")
        #expect(cache.takeSnapshot("b999", partition: 0) == Self.bytes("s999"), "the newest stays")
        #expect(cache.takeSnapshot("b900", partition: 0) == nil, "older ones left")
    }

    @Test func aNewerSnapshotReplacesTheOlderOneAndRenewsIt() {
        var cache = RecentSnapshots(limit: 16)
        cache.put(Self.bytes("old"), batchId: "a", partition: 0)
        for index in 0..<10 { cache.put(Self.bytes("\(index)"), batchId: "b\(index)", partition: 0) }
        cache.put(Self.bytes("new"), batchId: "a", partition: 0)
        for index in 10..<20 { cache.put(Self.bytes("\(index)"), batchId: "b\(index)", partition: 0) }
        #expect(cache.takeSnapshot("a", partition: 0) == Self.bytes("new"), "renewed by its newer snapshot, so not among the oldest")
        #expect(cache.takeSnapshot("b0", partition: 0) == nil)
        #expect(cache.count <= 16)
    }

    @Test func theCacheNeverHoldsMoreBytesThanStateCacheMaxAndTheNewestStay() {
        let byteLimit = 1 << 20
        var cache = RecentSnapshots(limit: 10_000, byteLimit: byteLimit)
        // Snapshots near events.maxBytes' scale: the count limit alone would let gigabytes in.
        for index in 0..<200 {
            cache.put(Self.bytes("s\(index)-", size: 40_000 + index % 7 * 1000), batchId: "b\(index)", partition: 0)
            #expect(cache.heldBytes <= byteLimit)
        }
        #expect(cache.count >= 10, "the limit still holds the most recent ones")
        #expect(cache.takeSnapshot("b199", partition: 0)?.prefix(5) == Data("s199-".utf8))
        #expect(cache.takeSnapshot("b0", partition: 0) == nil)
    }

    @Test func aSnapshotLargerThanTheByteLimitIsNotKept() {
        var cache = RecentSnapshots(limit: 100, byteLimit: 10_000)
        cache.put(Self.bytes("small"), batchId: "a", partition: 0)
        cache.put(Self.bytes("big", size: 20_000), batchId: "b", partition: 0)
        #expect(cache.takeSnapshot("b", partition: 0) == nil)
        #expect(cache.takeSnapshot("a", partition: 0) == Self.bytes("small"))
        #expect(cache.heldBytes <= 10_000)
    }

    @Test func takingRemovesAndOnlyTheSamePartitionMatches() {
        var cache = RecentSnapshots(limit: 4)
        cache.put(Self.bytes("x"), batchId: "a", partition: 1)
        #expect(cache.takeSnapshot("a", partition: 2) == nil)
        #expect(cache.takeSnapshot("a", partition: 1) == Self.bytes("x"))
        #expect(cache.takeSnapshot("a", partition: 1) == nil)
        #expect(cache.count == 0)
    }

    @Test func aPartitionLeavingTakesItsBatchesAndALimitOfZeroKeepsNothing() {
        var cache = RecentSnapshots(limit: 4)
        cache.put(Self.bytes("x"), batchId: "a", partition: 1)
        cache.put(Self.bytes("y"), batchId: "b", partition: 2)
        cache.removePartition(1)
        #expect(cache.count == 1 && cache.takeSnapshot("b", partition: 2) != nil)
        var none = RecentSnapshots(limit: 0)
        none.put(Self.bytes("x"), batchId: "a", partition: 1)
        #expect(none.count == 0)
    }

    @Test func snapshotsTakenOutAndPutBackDoNotGrowTheSlabsBeyondTwiceWhatTheyHold() {
        var cache = RecentSnapshots(limit: 10_000)
        // A few hot batches recorded over and over leave holes behind them in every slab.
        for round in 0..<2000 {
            for batch in 0..<5 {
                _ = cache.takeSnapshot("hot\(batch)", partition: 0)
                cache.put(Self.bytes("r\(round)", size: 4096), batchId: "hot\(batch)", partition: 0)
            }
        }
        let held = 5 * (4096 + 10)
        #expect(cache.count == 5)
        #expect(cache.heldBytes <= 2 * held + 3 * RecentSnapshots.slabBytes, "held \(cache.heldBytes) bytes for \(held)")
        #expect(cache.takeSnapshot("hot3", partition: 0) == Self.bytes("r1999", size: 4096))
    }

    @Test func fullSlabsHoldTheirSnapshotsWithoutTheSlackReservedForThem() {
        // The first slab is reserved for 1 KiB a batch before any size is known; these are 100 bytes.
        var cache = RecentSnapshots(limit: 8_000)
        for index in 0..<8_000 { cache.put(Self.bytes("", size: 100), batchId: String(format: "b%05d", index), partition: 0) }
        let live = 8_000 * (100 + 6)
        #expect(cache.count == 8_000)
        #expect(cache.heldBytes <= live * 5 / 4, "held \(cache.heldBytes) bytes for \(live)")
        #expect(cache.takeSnapshot("b00000", partition: 0) == Self.bytes("", size: 100), "the shrunk slab still reads back")
    }

    @Test func aSnapshotLargerThanASlabGetsOneOfItsOwn() {
        var cache = RecentSnapshots(limit: 8)
        let large = Self.bytes("large", size: 2 * RecentSnapshots.slabBytes)
        cache.put(large, batchId: "a", partition: 0)
        cache.put(Self.bytes("small"), batchId: "b", partition: 0)
        #expect(cache.takeSnapshot("a", partition: 0) == large)
        #expect(cache.takeSnapshot("b", partition: 0) == Self.bytes("small"))
    }
}
