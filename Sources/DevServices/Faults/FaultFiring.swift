/// One application of a fault: what fired, and on which request or file.
public struct FaultFiring: Sendable, Hashable {
    /// The fault that fired.
    public var fault: Fault
    /// The decoded path of the request it fired on.
    public var path: String
    /// The file id it fired for, when known (presigned file, or object key `{batchId}/{fileId}/…`).
    public var fileId: String?
}
