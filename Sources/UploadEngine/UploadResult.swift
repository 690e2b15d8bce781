/// The whole batch's settled state, delivered at every transition to idle. Consumers recompute from it.
public struct UploadResult: Sendable, Hashable, Codable {
    public struct Success: Sendable, Hashable, Codable {
        public var fileId: String
        public var attachment: Attachment
        public init(fileId: String, attachment: Attachment) {
            self.fileId = fileId
            self.attachment = attachment
        }
    }
    public struct Failure: Sendable, Hashable, Codable {
        public var fileId: String
        public var error: WireError
        public init(fileId: String, error: WireError) {
            self.fileId = fileId
            self.error = error
        }
    }
    public var batchId: String
    public var successful: [Success]
    public var rejected: [Failure]
    public var failed: [Failure]

    public init(batchId: String, successful: [Success] = [], rejected: [Failure] = [], failed: [Failure] = []) {
        self.batchId = batchId
        self.successful = successful
        self.rejected = rejected
        self.failed = failed
    }
}

/// An error as it travels in events and results: `{code, message, retryable}`.
public struct WireError: Sendable, Hashable, Codable {
    public var code: String
    public var message: String
    public var retryable: Bool

    public init(_ error: UploadError) {
        code = error.code.rawValue
        message = error.message
        retryable = error.isRetryable
    }
}
