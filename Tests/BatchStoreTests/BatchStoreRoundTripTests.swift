import BatchStore
import Foundation
import Testing

@Suite struct BatchStoreRoundTripTests {
    typealias F = BatchStoreFixtures
    private let temporary: TemporaryStore
    private var store: BatchStateStore { temporary.store }

    init() throws { temporary = try TemporaryStore() }

    @Test func appliedRowsAndCheckpointReadBackAsWritten() throws {
        #expect(temporary.opening == .created)
        let changes = [F.change("b-1", offset: 4, pending: true, updatedAt: 10), F.change("b-2", offset: 5, updatedAt: 20)]

        try store.apply(changes, partition: 3, checkpoint: 6)

        #expect(try store.checkpoint(partition: 3) == 6)
        #expect(try store.batch(partition: 3, batchId: "b-1") == F.stored(changes[0], partition: 3))
        #expect(try store.batch(partition: 3, batchId: "b-2") == F.stored(changes[1], partition: 3))
        #expect(try store.batchCount(partition: 3) == 2)
        // Partitions are separate: the same batch id elsewhere is another batch.
        #expect(try store.checkpoint(partition: 4) == nil)
        #expect(try store.batch(partition: 4, batchId: "b-1") == nil)
        #expect(try store.batchCount(partition: 4) == 0)
    }

    @Test func aLaterSnapshotReplacesTheEarlierOneAndTheCheckpointMoves() throws {
        try store.apply([F.change("b-1", offset: 0, version: 1, pending: true)], partition: 0, checkpoint: 1)

        let later = F.change("b-1", offset: 7, version: 2, pending: false, updatedAt: 99)
        try store.apply([later], partition: 0, checkpoint: 8)

        #expect(try store.batch(partition: 0, batchId: "b-1") == F.stored(later, partition: 0))
        #expect(try store.batchCount(partition: 0) == 1)
        #expect(try store.checkpoint(partition: 0) == 8)
    }

    @Test func withinOneCallTheLastChangeOfABatchWins() throws {
        let last = F.change("b-1", offset: 3, version: 3)

        try store.apply([F.change("b-1", offset: 1, version: 1), F.change("b-1", offset: 2, version: 2), last,
                         F.change("b-2", offset: 4), .tombstone(batchId: "b-2", offset: 5)],
                        partition: 0, checkpoint: 6)

        #expect(try store.batch(partition: 0, batchId: "b-1") == F.stored(last, partition: 0))
        #expect(try store.batch(partition: 0, batchId: "b-2") == nil)
        #expect(try store.batchCount(partition: 0) == 1)
    }

    @Test func aTombstoneDeletesTheBatchAndOneForAnUnknownBatchChangesNothing() throws {
        try store.apply([F.change("b-1", offset: 0), F.change("b-2", offset: 1)], partition: 2, checkpoint: 2)

        try store.apply([.tombstone(batchId: "b-1", offset: 2), .tombstone(batchId: "never-seen", offset: 3)],
                        partition: 2, checkpoint: 4)

        #expect(try store.batch(partition: 2, batchId: "b-1") == nil)
        #expect(try store.batch(partition: 2, batchId: "b-2") != nil)
        #expect(try store.batchCount(partition: 2) == 1)
        #expect(try store.checkpoint(partition: 2) == 4)
    }

    @Test func aTombstoneOnlyDeletesItsOwnPartitionsBatch() throws {
        try store.apply([F.change("b-1", offset: 0)], partition: 0, checkpoint: 1)
        try store.apply([F.change("b-1", offset: 0)], partition: 1, checkpoint: 1)

        try store.apply([.tombstone(batchId: "b-1", offset: 1)], partition: 1, checkpoint: 2)

        #expect(try store.batch(partition: 0, batchId: "b-1") != nil)
        #expect(try store.batch(partition: 1, batchId: "b-1") == nil)
    }

    @Test func anEmptyChangeListStillMovesTheCheckpoint() throws {

        try store.apply([], partition: 5, checkpoint: 120)

        #expect(try store.checkpoint(partition: 5) == 120)
        #expect(try store.batchCount(partition: 5) == 0)
    }

    @Test func aRejectedChangeLeavesNeitherItsRowsNorTheCheckpoint() throws {
        let kept = F.change("b-1", offset: 9, version: 1)
        try store.apply([kept], partition: 0, checkpoint: 10)

        // The third change is refused by the schema after the first two were written inside the transaction.
        let changes = [F.change("b-2", offset: 10), F.change("b-1", offset: 11, version: 2), F.change("b-3", offset: -1)]
        let error = #expect(throws: BatchStoreError.self) { try store.apply(changes, partition: 0, checkpoint: 12) }

        #expect(error?.code == .constraint)
        #expect(error?.operation == "apply")
        #expect(try store.checkpoint(partition: 0) == 10)
        #expect(try store.batch(partition: 0, batchId: "b-1") == F.stored(kept, partition: 0))
        #expect(try store.batch(partition: 0, batchId: "b-2") == nil)
        #expect(try store.batchCount(partition: 0) == 1)
        // The transaction was rolled back, not left open: the next call commits on its own.
        try store.apply([F.change("b-2", offset: 10)], partition: 0, checkpoint: 11)
        #expect(try store.checkpoint(partition: 0) == 11)
        #expect(try store.batchCount(partition: 0) == 2)
    }

    @Test func aNegativeCheckpointIsRefusedWithTheRowsOfItsCall() throws {

        let error = #expect(throws: BatchStoreError.self) {
            try store.apply([F.change("b-1", offset: 0)], partition: 0, checkpoint: -5)
        }

        #expect(error?.code == .constraint)
        #expect(try store.checkpoint(partition: 0) == nil)
        #expect(try store.batch(partition: 0, batchId: "b-1") == nil)
    }

    @Test func keysAndSnapshotsKeepEveryByte() throws {
        let binary = Data([0, 255, 0, 1, 0x80, 0])
        let changes = [
            BatchChange(batchId: "", snapshot: Data(), offset: 0, pending: false, updatedAt: 0),
            BatchChange(batchId: "bätch 🧾", snapshot: binary, offset: 1, pending: true, updatedAt: -1),
            BatchChange(batchId: "a\u{0}b", snapshot: Data("x".utf8), offset: Int64.max, pending: false, updatedAt: .max),
        ]

        try store.apply(changes, partition: Int32.max, checkpoint: Int64.max)

        for change in changes {
            #expect(try store.batch(partition: Int32.max, batchId: change.batchId) == F.stored(change, partition: .max))
        }
        // "a\0b" is its own key, not "a".
        #expect(try store.batch(partition: Int32.max, batchId: "a") == nil)
        #expect(try store.batchCount(partition: Int32.max) == 3)
        #expect(try store.checkpoint(partition: Int32.max) == Int64.max)
    }

    @Test func callsAfterCloseFailAsClosed() throws {
        store.close()
        store.close()

        let error = #expect(throws: BatchStoreError.self) { try store.checkpoint(partition: 0) }
        #expect(error?.code == .closed)
        #expect(throws: BatchStoreError.self) { try store.apply([], partition: 0, checkpoint: 0) }
    }

    @Test func callsFromManyTasksAtOnceAllLand() async throws {
        let store = store

        try await withThrowingTaskGroup(of: Void.self) { group in
            for partition in Int32(0)..<8 {
                group.addTask {
                    for round in Int64(0)..<25 {
                        try store.apply([F.change("b-\(round)", offset: round)], partition: partition, checkpoint: round + 1)
                        _ = try store.batch(partition: partition, batchId: "b-\(round)")
                    }
                }
            }
            try await group.waitForAll()
        }

        for partition in Int32(0)..<8 {
            #expect(try store.batchCount(partition: partition) == 25)
            #expect(try store.checkpoint(partition: partition) == 25)
        }
    }
}
