import Foundation

/// One batch as the store holds it: the latest changelog snapshot of the batch on one partition.
public struct StoredBatch: Sendable, Hashable {
    /// The jobs (and changelog) partition the batch belongs to.
    public var partition: Int32
    /// The batch id, the changelog record's key.
    public var batchId: String
    /// The snapshot, the changelog record's value, as it was read (the store does not decode it).
    public var snapshot: Data
    /// The changelog offset of the record the snapshot came from.
    public var offset: Int64
    /// Whether the batch has work in flight that must resume after a restore.
    public var pending: Bool
    /// When the batch last changed, in milliseconds since the Unix epoch.
    public var updatedAt: Int64

    /// A stored batch.
    public init(partition: Int32, batchId: String, snapshot: Data, offset: Int64, pending: Bool, updatedAt: Int64) {
        self.partition = partition
        self.batchId = batchId
        self.snapshot = snapshot
        self.offset = offset
        self.pending = pending
        self.updatedAt = updatedAt
    }
}
