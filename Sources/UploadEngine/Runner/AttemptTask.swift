import Synchronization

/// A piece of an attempt's work, as a task runs it.
enum AttemptWork: Sendable {
    /// With the multipart upload the file's next upload would resume, if any.
    case stage(AttemptToken, FileItem, sizeLimit: Int64, batchId: String, resuming: MultipartUpload?)
    case presign([PresignCall], BatchContext)
    case upload(AttemptToken, UploadTransfer)

    /// The attempt whose task this is while the work runs, for the batch's `cancel` action; none for a presign
    /// call, which a file's `cancel` does not stop (its answer is dropped) and only an abandon does.
    var token: AttemptToken? {
        switch self {
        case .stage(let token, _, _, _, _), .upload(let token, _): token
        case .presign: nil
        }
    }
}

/// The task that runs attempt work: one piece, then whatever the end of that piece hands on (the presign after a
/// stage, the upload after a presign), until a piece hands on nothing. Each hand-on spares making, scheduling and
/// ending a task.
final class AttemptTask: Sendable {
    /// Set once, right after the task is made, under the runner's lock; cancelled under it too.
    private let handle = Mutex<Task<Void, Never>?>(nil)

    /// Starts a task running `work` and what its end hands on.
    static func start(_ work: AttemptWork, on runner: BatchRunner) -> AttemptTask {
        let attempt = AttemptTask()
        let task = Task {
            var next: AttemptWork? = work
            while let current = next { next = await runner.run(current, in: attempt) }
        }
        attempt.handle.withLock { $0 = task }
        return attempt
    }

    func cancel() { handle.withLock { $0 }?.cancel() }
}

/// What a finishing task offers to take over: at most one piece of work, handed on instead of a new task.
struct WorkClaim {
    let task: AttemptTask?
    var work: AttemptWork?
}
