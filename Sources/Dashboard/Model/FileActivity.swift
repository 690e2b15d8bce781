import UploadEngine

/// One file of a batch on the dashboard: its state, bytes, latest error and, once stored, its attachment.
public struct FileActivity: Sendable, Hashable {
    /// What a rejection or failure said.
    public struct Problem: Sendable, Hashable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public let fileId: String
    /// The display name: the job's, else the attachment's, else the id.
    public var name: String
    public var mimeType: String?
    public var state: FileProgressState
    /// Bytes sent so far (never lower than an earlier report, as the worker promises).
    public var loaded: Int64 = 0
    /// The file's size once known: the job's declared or inline size, the progress total, the attachment's size.
    public var total: Int64?
    public var percent = 0
    /// The latest attempt's number (`file.failed`).
    public var attempt = 0
    public var problem: Problem?
    /// The stored file, as `file.uploaded` (or `batch.completed`) described it.
    public var attachment: Attachment?

    public init(fileId: String, name: String? = nil, mimeType: String? = nil, state: FileProgressState, total: Int64? = nil) {
        self.fileId = fileId
        self.name = name ?? fileId
        self.mimeType = mimeType
        self.state = state
        self.total = total
    }
}
