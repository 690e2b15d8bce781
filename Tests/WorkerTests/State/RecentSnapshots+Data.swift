import Foundation
@testable import Worker

/// The cache in terms of snapshots as encoded, as the tests put and compare them.
extension RecentSnapshots {
    mutating func put(_ snapshot: Data, batchId: String, partition: Int32) {
        put(Packed(snapshot), batchId: batchId, partition: partition)
    }

    mutating func takeSnapshot(_ batchId: String, partition: Int32) -> Data? {
        take(batchId, partition: partition).map(\.snapshot)
    }
}
