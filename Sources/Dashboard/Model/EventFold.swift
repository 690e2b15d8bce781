/// What folding one event into a batch did, for the panels that count across batches.
struct EventFold: Sendable, Hashable {
    /// The event was a repeat (same id as one already folded) and changed nothing.
    var duplicate = false
    /// Bytes the file moved since the previous report (progress deltas; the rest of the file on `file.uploaded`).
    var bytesMoved: Int64 = 0
    /// Files stored by this event.
    var filesUploaded = 0
    /// A rejection or failure to count and list.
    var problem: ProblemNote?
}
