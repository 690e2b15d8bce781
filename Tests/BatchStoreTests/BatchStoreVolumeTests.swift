import BatchStore
import TestSupport
import Testing

@Suite struct BatchStoreVolumeTests {
    typealias F = BatchStoreFixtures

    @Test func aHundredThousandChangesApplyInOneCall() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        let (store, _) = try BatchStateStore.open(path: path)
        let count = 100_000
        let changes = (0..<count).map { F.change("batch-\($0)", offset: Int64($0), pending: $0 % 1_000 == 0, updatedAt: Int64($0)) }

        try store.apply(changes, partition: 0, checkpoint: Int64(count))

        #expect(try store.batchCount(partition: 0) == count)
        #expect(try store.checkpoint(partition: 0) == Int64(count))
        #expect(try store.batch(partition: 0, batchId: "batch-76543") == F.stored(changes[76_543], partition: 0))
        #expect(try store.pendingBatches(partition: 0).count == 100)

        // Half of them tombstoned in one more call, then the lot read back after a reopen.
        try store.apply((0..<count / 2).map { .tombstone(batchId: "batch-\($0 * 2)", offset: Int64(count + $0)) },
                        partition: 0, checkpoint: Int64(count + count / 2))
        store.close()
        let (reopened, opening) = try BatchStateStore.open(path: path)
        defer { reopened.close() }
        #expect(opening == .opened)
        #expect(try reopened.batchCount(partition: 0) == count / 2)
        #expect(try reopened.batch(partition: 0, batchId: "batch-2") == nil)
        #expect(try reopened.batch(partition: 0, batchId: "batch-3") == F.stored(changes[3], partition: 0))
        #expect(try reopened.checkpoint(partition: 0) == Int64(count + count / 2))
    }
}
