/// The tasks running a batch's presign calls. No file's `cancel` stops one, since a call answers for a group of
/// files, but an abandon does: a batch handed to another owner must not go on calling the endpoint for it (a call
/// still waiting for a transfer slot would reach the endpoint after the hand-over).
///
/// The first call is held inline: a batch has one call under way at a time unless its files came in several
/// cohorts, and an array for that one would be an allocation on every small job.
struct PresignCalls {
    private var first: AttemptTask?
    private var more: [AttemptTask] = []

    mutating func insert(_ task: AttemptTask) {
        if first == nil { first = task } else { more.append(task) }
    }

    /// `task`'s call is over.
    mutating func remove(_ task: AttemptTask) {
        if first === task {
            first = more.popLast()
        } else if let index = more.firstIndex(where: { $0 === task }) {
            more.remove(at: index)
        } else {
            return
        }
        // Emptied, the list gives its storage back: a batch keeps its runner while it lives, most of that time with
        // no call under way.
        if more.isEmpty { more = [] }
    }

    /// Cancels every call under way and forgets them.
    mutating func cancelAll() {
        first?.cancel()
        more.forEach { $0.cancel() }
        self = PresignCalls()
    }
}
