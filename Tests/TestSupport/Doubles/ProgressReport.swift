/// One progress callback's numbers.
public struct ProgressReport: Sendable, Equatable {
    /// Bytes sent so far.
    public var sent: Int64
    /// The total, when known.
    public var total: Int64?

    /// A report of `sent` bytes out of `total`.
    public init(sent: Int64, total: Int64?) {
        self.sent = sent
        self.total = total
    }
}
