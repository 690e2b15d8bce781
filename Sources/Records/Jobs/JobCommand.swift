import UploadEngine

/// What a record on the jobs topic asks for.
public enum JobCommand: Sendable, Hashable {
    case upload(UploadJob)
    /// Re-upload a failed file from its retained bytes.
    case retry(batchId: String, fileId: String)
    /// Abort or drop one file, freeing its room.
    case remove(batchId: String, fileId: String)
    /// Abort everything and drop the batch.
    case clear(batchId: String)
    /// Send the batch's unsent attachments now.
    case send(batchId: String)
    /// Change the batch's concurrency.
    case configure(batchId: String, concurrency: Int)

    /// The batch the command is about.
    public var batchId: String {
        switch self {
        case .upload(let job): job.batchId
        case .retry(let batchId, _), .remove(let batchId, _), .clear(let batchId), .send(let batchId), .configure(let batchId, _): batchId
        }
    }
}

/// An upload job: files for a batch, and what to do with them once uploaded.
public struct UploadJob: Sendable, Hashable {
    public var requestId: String
    public var batchId: String
    public var receiver: Receiver
    public var sender: String?
    public var parentMessageId: String?
    /// Whose share of the worker the batch's files use (DESIGN §12); nil: the receiver's.
    public var tenant: String?
    /// The batch's concurrency from now on, if the job sets one.
    public var concurrency: Int?
    public var files: [FileItem]
    public var message: MessageOptions

    public init(requestId: String, batchId: String, receiver: Receiver, sender: String?, parentMessageId: String?,
                tenant: String? = nil, concurrency: Int?, files: [FileItem], message: MessageOptions) {
        self.requestId = requestId
        self.batchId = batchId
        self.receiver = receiver
        self.sender = sender
        self.parentMessageId = parentMessageId
        self.tenant = tenant
        self.concurrency = concurrency
        self.files = files
        self.message = message
    }

    public var context: BatchContext {
        BatchContext(batchId: batchId, receiver: receiver, sender: sender, parentMessageId: parentMessageId, tenant: tenant)
    }
}

/// Why a record is invalid as a whole (it goes to the dead-letter topic).
public struct InvalidJob: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
