import Foundation
import UploadEngine

/// What the worker keeps about one batch besides the engine's state.
struct BatchSession: Sendable {
    let runner: BatchRunner
    var context: BatchContext
    var options: MessageOptions
    /// The partition the batch's records come from (its key decides it), for rebalances.
    var partition: Int32?
    /// The batch's CloudEvents `sequence`, and the order its events leave in.
    let events = EventSequence()
    /// Records to let go (commit) when the batch next settles — idle, with no send under way — or to give up when
    /// the batch is handed to another owner.
    var waiting: [RecordRelease] = []
    var sending = false
    /// Records being applied right now: the batch must not settle before their files are in.
    var intake = 0
    /// A `send` control arrived while a send was under way: send again when it ends.
    var sendRequested = false
    var captionSent = false
    /// The request whose `completed` triggered the send under way (message events carry it).
    var sendRequestId = ""
    var lastActivity: Date
}

/// What becomes of one record that waits for its batch: let go for commit once the batch settles, or given up
/// (left uncommitted, for the partition's next owner to replay) when the batch is abandoned. Exactly one runs.
struct RecordRelease: Sendable {
    let settled: @Sendable () -> Void
    let abandoned: @Sendable () -> Void
}
