import Foundation
import Testing
@testable import Worker

/// The idle batches kept encoded: bounded by the limit, least recently recorded leaving first, taken out on use.
@Suite struct RecentSnapshotsTests {
    private static func bytes(_ text: String) -> Data { Data(text.utf8) }

    @Test func theCacheNeverHoldsMoreThanItsLimitAndTheOldestLeaveFirst() {
        var cache = RecentSnapshots(limit: 16)
        for index in 0..<100 {
            cache.put(Self.bytes("s\(index)"), batchId: "b\(index)", partition: 0)
            #expect(cache.count <= 16)
        }
        #expect(cache.take("b99", partition: 0) == Self.bytes("s99"), "the newest stays")
        #expect(cache.take("b0", partition: 0) == nil, "the oldest left")
    }

    @Test func aNewerSnapshotReplacesTheOlderOneAndRenewsIt() {
        var cache = RecentSnapshots(limit: 8)
        cache.put(Self.bytes("old"), batchId: "a", partition: 0)
        for index in 0..<6 { cache.put(Self.bytes("\(index)"), batchId: "b\(index)", partition: 0) }
        cache.put(Self.bytes("new"), batchId: "a", partition: 0)
        for index in 6..<10 { cache.put(Self.bytes("\(index)"), batchId: "b\(index)", partition: 0) }
        #expect(cache.take("a", partition: 0) == Self.bytes("new"), "renewed by its newer snapshot, so not the oldest")
        #expect(cache.take("b0", partition: 0) == nil)
    }

    @Test func takingRemovesAndOnlyTheSamePartitionMatches() {
        var cache = RecentSnapshots(limit: 4)
        cache.put(Self.bytes("x"), batchId: "a", partition: 1)
        #expect(cache.take("a", partition: 2) == nil)
        #expect(cache.take("a", partition: 1) == Self.bytes("x"))
        #expect(cache.take("a", partition: 1) == nil)
    }

    @Test func aPartitionLeavingTakesItsBatchesAndALimitOfZeroKeepsNothing() {
        var cache = RecentSnapshots(limit: 4)
        cache.put(Self.bytes("x"), batchId: "a", partition: 1)
        cache.put(Self.bytes("y"), batchId: "b", partition: 2)
        cache.removePartition(1)
        #expect(cache.count == 1 && cache.take("b", partition: 2) != nil)
        var none = RecentSnapshots(limit: 0)
        none.put(Self.bytes("x"), batchId: "a", partition: 1)
        #expect(none.count == 0)
    }
}
