import BatchStore
import Testing

@Suite struct BatchStorePartitionTests {
    typealias F = BatchStoreFixtures
    private let temporary: TemporaryStore
    private var store: BatchStateStore { temporary.store }

    init() throws { temporary = try TemporaryStore() }

    /// Two batches and a checkpoint on each of `partitions`.
    private func fill(_ partitions: [Int32]) throws {
        for partition in partitions {
            try store.apply([F.change("a", offset: 0), F.change("b", offset: 1)], partition: partition, checkpoint: 2)
        }
    }

    @Test func droppingAPartitionRemovesItsRowsAndCheckpointOnly() throws {
        try fill([0, 1, 2])

        try store.dropPartition(1)

        #expect(try store.batchCount(partition: 1) == 0)
        #expect(try store.checkpoint(partition: 1) == nil)
        #expect(try store.batch(partition: 1, batchId: "a") == nil)
        for partition: Int32 in [0, 2] {
            #expect(try store.batchCount(partition: partition) == 2)
            #expect(try store.checkpoint(partition: partition) == 2)
        }
    }

    @Test func droppingAPartitionTheStoreNeverHeldChangesNothing() throws {
        try fill([0])

        try store.dropPartition(9)

        #expect(try store.batchCount(partition: 0) == 2)
        #expect(try store.checkpoint(partition: 0) == 2)
    }

    @Test func retainOnlyDropsEveryOtherPartitionWithRowsOrACheckpoint() throws {
        try fill([-3, 0, 1, 2, 5, 1_000])
        try store.apply([], partition: 7, checkpoint: 40)   // a checkpoint without rows

        let dropped = try store.retainOnly(partitions: [1, 5, 9])

        #expect(dropped == [-3, 0, 2, 7, 1_000])
        for partition: Int32 in [-3, 0, 2, 7, 1_000] {
            #expect(try store.batchCount(partition: partition) == 0)
            #expect(try store.checkpoint(partition: partition) == nil)
        }
        for partition: Int32 in [1, 5] {
            #expect(try store.batchCount(partition: partition) == 2)
            #expect(try store.checkpoint(partition: partition) == 2)
        }
        #expect(try store.retainOnly(partitions: [1, 5]) == [])
    }

    @Test func retainingNothingEmptiesTheStore() throws {
        try fill([0, 1])

        #expect(try store.retainOnly(partitions: []) == [0, 1])

        #expect(try store.batchCount(partition: 0) == 0)
        #expect(try store.batchCount(partition: 1) == 0)
        #expect(try store.checkpoint(partition: 0) == nil)
    }
}
