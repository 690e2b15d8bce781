import TestSupport
import Testing
@testable import BatchStore

/// The filter that spares lookups of batches the store cannot hold: it never hides a row, across growth, reopening
/// and rows rewritten or deleted, and it says "absent" for nearly every id it never saw.
@Suite struct StoredRowFilterTests {
    typealias F = BatchStoreFixtures

    @Test func aFilterNeverMissesAnInsertedRowAndRulesOutNearlyAllOthers() {
        var filter = StoredRowFilter(capacity: 10_000)
        for index in 0..<10_000 { filter.insert(partition: Int32(index % 4), batchId: "b-\(index)") }
        #expect((0..<10_000).allSatisfy { filter.mayContain(partition: Int32($0 % 4), batchId: "b-\($0)") })
        let strangers = (0..<10_000).count { filter.mayContain(partition: Int32($0 % 4), batchId: "new-\($0)") }
        #expect(strangers < 100, "\(strangers) of 10,000 unseen ids passed")
        #expect(!filter.isFull)
        #expect(!filter.mayContain(partition: 1, batchId: "b-0") || !filter.mayContain(partition: 2, batchId: "b-0"),
                "the partition is part of the key")
    }

    @Test func rowsStayFoundAsTheStoreGrowsPastItsFilterAndAfterItReopens() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        var (store, _) = try BatchStateStore.open(path: path)
        // Far past the first filter's capacity (1,024 rows), in applies of 500: it is rebuilt on the way.
        for chunk in 0..<10 {
            let changes = (0..<500).map { F.change("b-\(chunk * 500 + $0)", offset: Int64(chunk * 500 + $0)) }
            try store.apply(changes, partition: 3, checkpoint: Int64((chunk + 1) * 500))
        }
        #expect(try (0..<5_000).allSatisfy { try store.batch(partition: 3, batchId: "b-\($0)") != nil })
        #expect(try store.batch(partition: 3, batchId: "b-5000") == nil)
        store.close()
        #expect(throws: BatchStoreError.self, "a closed store refuses lookups, even of batches it never held") {
            try store.batch(partition: 3, batchId: "never")
        }

        (store, _) = try BatchStateStore.open(path: path)
        defer { store.close() }
        #expect(try (0..<5_000).allSatisfy { try store.batch(partition: 3, batchId: "b-\($0)") != nil },
                "a reopened store builds its filter from the table")
        try store.apply([.tombstone(batchId: "b-7", offset: 5_000)], partition: 3, checkpoint: 5_001)
        #expect(try store.batch(partition: 3, batchId: "b-7") == nil)
        try store.apply([F.change("b-7", offset: 5_001, version: 2)], partition: 3, checkpoint: 5_002)
        #expect(try store.batch(partition: 3, batchId: "b-7")?.snapshot == F.snapshot("b-7", version: 2),
                "a batch written again after its tombstone is found")
    }
}
