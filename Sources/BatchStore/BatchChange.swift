import Foundation

/// One changelog record to apply to the store: a new snapshot of a batch, or a tombstone that deletes it.
public struct BatchChange: Sendable, Hashable {
    /// The batch id, the changelog record's key.
    public var batchId: String
    /// The record's value; `nil` for a tombstone, which deletes the batch.
    public var snapshot: Data?
    /// The changelog offset of the record (not negative).
    public var offset: Int64
    /// Whether the batch has work in flight that must resume after a restore (ignored for a tombstone).
    public var pending: Bool
    /// When the batch last changed, in milliseconds since the Unix epoch (ignored for a tombstone).
    public var updatedAt: Int64

    /// A change: a snapshot, or with `snapshot: nil` a tombstone.
    public init(batchId: String, snapshot: Data?, offset: Int64, pending: Bool, updatedAt: Int64) {
        self.batchId = batchId
        self.snapshot = snapshot
        self.offset = offset
        self.pending = pending
        self.updatedAt = updatedAt
    }

    /// A tombstone: the batch was cleared or expired.
    public static func tombstone(batchId: String, offset: Int64) -> BatchChange {
        BatchChange(batchId: batchId, snapshot: nil, offset: offset, pending: false, updatedAt: 0)
    }
}
