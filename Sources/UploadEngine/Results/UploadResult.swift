/// The whole batch's settled state, delivered at every transition to idle. Consumers recompute from it.
public struct UploadResult: Sendable, Hashable {
    public struct Success: Sendable, Hashable {
        public var fileId: String
        public var attachment: Attachment
        public init(fileId: String, attachment: Attachment) {
            self.fileId = fileId
            self.attachment = attachment
        }
    }
    public struct Failure: Sendable, Hashable {
        public var fileId: String
        public var error: WireError
        public init(fileId: String, error: WireError) {
            self.fileId = fileId
            self.error = error
        }
    }
    /// How many rejected files `rejected` lists at most: the most recent ones. What a record says must not make a
    /// `batch.completed` event (or a snapshot) grow without bound.
    public static let rejectedLimit = 100

    public var batchId: String
    public var successful: [Success]
    /// The most recent rejections, at most `rejectedLimit`, in input order.
    public var rejected: [Failure]
    /// Every rejected file in the batch, also those `rejected` no longer lists.
    public var rejectedTotal: Int
    public var failed: [Failure]

    public init(batchId: String, successful: [Success] = [], rejected: [Failure] = [], rejectedTotal: Int? = nil,
                failed: [Failure] = []) {
        self.batchId = batchId
        self.successful = successful
        self.rejected = rejected
        self.rejectedTotal = rejectedTotal ?? rejected.count
        self.failed = failed
    }
}

/// An error as it travels in events and results: `{code, message, retryable}`.
public struct WireError: Sendable, Hashable {
    public var code: String
    public var message: String
    public var retryable: Bool

    /// The longest `message` an event carries, in UTF-8 bytes: a server's or a source's error text is cut here, so
    /// it cannot make an event too large to publish.
    public static let messageLimit = 1024

    public init(_ error: UploadError) {
        self.init(code: error.code.rawValue, message: error.message, retryable: error.isRetryable)
    }

    /// An error from its parts; the message is cut to `messageLimit` bytes, the code to 128.
    public init(code: String, message: String, retryable: Bool) {
        self.code = Self.cut(code, toBytes: 128)
        self.message = Self.cut(message, toBytes: Self.messageLimit)
        self.retryable = retryable
    }

    /// `text` cut to at most `limit` UTF-8 bytes on a scalar boundary, with `…` marking the cut.
    public static func cut(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let room = max(0, limit - 3)  // "…" takes three bytes.
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            guard used + size <= room else { break }
            kept.append(scalar)
            used += size
        }
        return String(kept) + "…"
    }
}
