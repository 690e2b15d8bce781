import BatchStore
import Foundation

/// Snapshots and changes for the store tests.
enum BatchStoreFixtures {
    /// A JSON-like snapshot of about `size` bytes that names the batch and its version.
    static func snapshot(_ batchId: String, version: Int = 1, size: Int = 500) -> Data {
        let head = #"{"v":1,"batchId":"\#(batchId)","version":\#(version),"files":["#
        let padding = String(repeating: "x", count: max(0, size - head.utf8.count - 3))
        return Data((head + "\"\(padding)\"]}").utf8)
    }

    /// A snapshot change of `batchId` at `offset`.
    static func change(_ batchId: String, offset: Int64, version: Int = 1, pending: Bool = false,
                       updatedAt: Int64 = 1_700_000_000_000) -> BatchChange {
        BatchChange(batchId: batchId, snapshot: snapshot(batchId, version: version), offset: offset, pending: pending,
                    updatedAt: updatedAt)
    }

    /// What the store should hold for `change` applied on `partition`.
    static func stored(_ change: BatchChange, partition: Int32) -> StoredBatch {
        StoredBatch(partition: partition, batchId: change.batchId, snapshot: change.snapshot ?? Data(),
                    offset: change.offset, pending: change.pending, updatedAt: change.updatedAt)
    }
}
