import BatchStore
import Testing

/// Each test gets a new store holding ``changes`` on partition 1.
@Suite struct BatchStoreQueryTests {
    typealias F = BatchStoreFixtures

    private let changes = [
        F.change("idle-old", offset: 0, pending: false, updatedAt: 100),
        F.change("pending-late", offset: 1, pending: true, updatedAt: 900),
        F.change("idle-new", offset: 2, pending: false, updatedAt: 500),
        F.change("pending-early", offset: 3, pending: true, updatedAt: 50),
        F.change("idle-tie-b", offset: 4, pending: false, updatedAt: 300),
        F.change("idle-tie-a", offset: 5, pending: false, updatedAt: 300),
    ]

    private let temporary: TemporaryStore
    private var store: BatchStateStore { temporary.store }

    init() throws {
        temporary = try TemporaryStore()
        let store = temporary.store
        try store.apply(changes, partition: 1, checkpoint: 6)
        // Another partition with batches of every kind, which no query of partition 1 may return.
        try store.apply([F.change("other-pending", offset: 0, pending: true, updatedAt: 1),
                         F.change("other-idle", offset: 1, pending: false, updatedAt: 1)], partition: 2, checkpoint: 2)
    }

    private func ids(_ batches: [StoredBatch]) -> [String] { batches.map(\.batchId) }

    @Test func pendingBatchesAreThoseWithWorkInFlightLeastRecentFirst() throws {
        let pending = try store.pendingBatches(partition: 1)

        #expect(ids(pending) == ["pending-early", "pending-late"])
        #expect(pending.first == F.stored(changes[3], partition: 1))
        #expect(try store.pendingBatches(partition: 3).isEmpty)
    }

    @Test func aBatchThatSettlesLeavesThePendingList() throws {
        try store.apply([F.change("pending-early", offset: 6, pending: false, updatedAt: 1_000)], partition: 1, checkpoint: 7)

        #expect(ids(try store.pendingBatches(partition: 1)) == ["pending-late"])
        #expect(ids(try store.idleBatches(partition: 1, updatedBefore: 2_000, limit: 10)).last == "pending-early")
    }

    @Test func idleBatchesAreOldestFirstStrictlyBeforeTheCutoffWithoutPendingOnes() throws {
        #expect(ids(try store.idleBatches(partition: 1, updatedBefore: 10_000, limit: 10))
                == ["idle-old", "idle-tie-a", "idle-tie-b", "idle-new"])
        // Strictly before: a batch changed at the cutoff is not idle long enough yet.
        #expect(ids(try store.idleBatches(partition: 1, updatedBefore: 500, limit: 10)) == ["idle-old", "idle-tie-a", "idle-tie-b"])
        #expect(ids(try store.idleBatches(partition: 1, updatedBefore: 100, limit: 10)) == [])
    }

    @Test func idleBatchesStopAtTheLimit() throws {
        #expect(ids(try store.idleBatches(partition: 1, updatedBefore: 10_000, limit: 2)) == ["idle-old", "idle-tie-a"])
        #expect(try store.idleBatches(partition: 1, updatedBefore: 10_000, limit: 0).isEmpty)
    }

    @Test func batchCountCountsOnlyThePartition() throws {
        #expect(try store.batchCount(partition: 1) == 6)
        #expect(try store.batchCount(partition: 2) == 2)
    }
}
