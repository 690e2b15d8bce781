import BatchStore
import Foundation
import TestSupport
import Testing

/// How long the calls the worker makes take on 100,000 batches of ~500-byte snapshots; prints figures, asserts only
/// counts.
///
/// Run with `BATCHSTORE_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter BatchStoreBenchmark`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["BATCHSTORE_BENCH"] != nil), .serialized)
struct BatchStoreBenchmark {
    typealias F = BatchStoreFixtures
    private static let count = 100_000

    private static func report(_ label: String, _ elapsed: Duration, per count: Int? = nil) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if let count {
            print("\(label): \(String(format: "%.2f", seconds / Double(count) * 1e6)) µs each")
        } else {
            print("\(label): \(String(format: "%.1f", seconds * 1e3)) ms")
        }
    }

    @Test func applyAndLookupOfAHundredThousandBatches() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        let clock = ContinuousClock()
        let ids = (0..<Self.count).map { _ in UUID().uuidString.lowercased() }
        let inserts = ids.enumerated().map { F.change($1, offset: Int64($0), pending: $0 % 100 == 0, updatedAt: Int64($0)) }
        let updates = ids.enumerated().map { F.change($1, offset: Int64(Self.count + $0), version: 2, updatedAt: Int64($0)) }
        var (store, _) = try BatchStateStore.open(path: path)

        Self.report("apply 100k new batches", try clock.measure { try store.apply(inserts, partition: 0, checkpoint: 1) })
        Self.report("pendingBatches (1,000 of 100k)", try clock.measure { _ = try store.pendingBatches(partition: 0) })
        Self.report("apply 100k updates", try clock.measure { try store.apply(updates, partition: 0, checkpoint: 2) })
        var found = 0
        Self.report("batch(partition:batchId:)", try clock.measure {
            for id in ids.shuffled() where try store.batch(partition: 0, batchId: id) != nil { found += 1 }
        }, per: Self.count)
        Self.report("idleBatches, limit 1,000", try clock.measure {
            _ = try store.idleBatches(partition: 0, updatedBefore: .max, limit: 1_000)
        })
        store.close()
        Self.report("open with quick_check", try clock.measure { (store, _) = try BatchStateStore.open(path: path) })
        let tombstones = ids.map { BatchChange.tombstone(batchId: $0, offset: 0) }
        Self.report("apply 100k tombstones", try clock.measure { try store.apply(tombstones, partition: 0, checkpoint: 3) })

        #expect(found == Self.count)
        #expect(try store.batchCount(partition: 0) == 0)
        store.close()
    }
}
