/// One progress callback's numbers.
struct ProgressReport: Sendable, Equatable {
    var sent: Int64
    var total: Int64?
}
