/// Identifies one attempt at one file. Completions carry it back; a completion for a superseded attempt is dropped.
public struct AttemptToken: Sendable, Hashable, CustomStringConvertible {
    /// The file's slot in the batch (stable for its life, never reused).
    public let entry: Int
    /// Bumped on every new attempt, re-use, removal or clear.
    public let generation: Int

    public var description: String { "\(entry).\(generation)" }
}

/// Work the batch asks its driver to do. The driver performs it and feeds the outcome back.
public enum BatchAction: Sendable, Hashable {
    /// Copy the file's source into staging, enforcing `sizeLimit`.
    /// `resuming`: the multipart upload the file has under way, which its upload resumes if the bytes match; a stager
    /// may take its digest for a source of the version it recorded
    /// (``SourceStager/stage(_:batchId:sizeLimit:resuming:)``).
    case stage(AttemptToken, FileItem, sizeLimit: Int64, resuming: MultipartUpload?)
    /// Presign these files in one call (after a whole-call failure, calls of one file each).
    case presign([PresignCall])
    case upload(AttemptToken, UploadTransfer)
    /// Abort the attempt's stage or upload at once. Either way its outcome will be ignored; a presign call under way
    /// is not tracked and goes on, its answer dropped.
    case cancel(AttemptToken)
    /// Give staged bytes back.
    case release(StagedFile)
    /// A file whose attempt failed holds this source open for its next attempt: ask the stager whether it may
    /// (``SourceStager/keep(_:)``), and if not, tell the batch (``UploadBatch/keepRefused(_:)``).
    case keep(AttemptToken, StagedFile)
    /// Delete the stored object of an uploaded file that was removed.
    case deleteObject(Attachment, UploadTarget)
    /// Abort the multipart upload of a file given up, removed or cleared (``Uploader/abandon(_:)``).
    case abortUpload(MultipartUpload)
    /// Post one message of the batch's send plan; the outcome comes back tagged with the token.
    case post(SendToken, PlannedMessage)
    /// A send plan was made: once the batch's snapshot at its state version after this transition is recorded, tell
    /// the batch (``UploadBatch/planRecorded(_:now:)``), which then posts its first message.
    case awaitRecord(SendToken)
}

extension BatchAction {
    /// A send starting or going on: a send under way is durable state (§4.1), resumed by the batch's next owner.
    var startsAPost: Bool {
        switch self {
        case .post, .awaitRecord: true
        default: false
        }
    }
}

/// One file of a presign call, with the attempt it belongs to.
public struct PresignCall: Sendable, Hashable {
    public var token: AttemptToken
    public var file: PresignFile
}

/// The result of feeding the batch one input: events to deliver (in order) and actions to perform.
public struct BatchEffects: Sendable {
    public var events: [UploadEvent] = []
    public var actions: [BatchAction] = []
    public var outcome: ControlOutcome = .applied

    public init() {}
}
