import Foundation
import KafkaIO
import UploadEngine

/// What the registry keeps about one batch besides the engine's state, which is all in the runner's batch.
struct BatchSession: Sendable {
    let runner: BatchRunner
    /// The partition the batch's records come from (its key decides it), for rebalances and the changelog.
    var partition: Int32
    /// Records to let go (commit) when the batch next settles — quiescent, its events and snapshot delivered — or
    /// to give up when the batch is handed to another owner.
    var waiting: [RecordPosition] = []
    /// Records being applied right now: the batch must not settle before their files are in.
    var intake = 0
    /// When a record last touched the batch: idle batches leave memory least recently used first.
    var lastActivity: Date
}
