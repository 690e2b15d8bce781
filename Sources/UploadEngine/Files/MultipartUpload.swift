/// A multipart upload under way for a file (DESIGN §12 *Resume across workers*): part of the file's durable state,
/// so the file's next attempt — on this worker after a failure, or on another after a crash, a deploy or a
/// rebalance — uploads only the parts storage does not have yet and completes the same upload.
///
/// Storage reports it as parts complete (``Uploader/upload(_:progress:stored:)``); the batch records it, hands it to
/// the next attempt in ``UploadTransfer/multipart``, and asks for it to be aborted
/// (``BatchAction/abortUpload(_:)``) when the file is given up, removed or cleared.
public struct MultipartUpload: Sendable, Hashable {
    /// One part storage has: its number (1-based), the `ETag` it answered, and the hex SHA-256 of its bytes
    /// (empty when the upload sends no part checksums).
    public struct Part: Sendable, Hashable {
        public var number: Int
        public var etag: String
        public var sha256: String

        public init(number: Int, etag: String, sha256: String) {
            self.number = number
            self.etag = etag
            self.sha256 = sha256
        }
    }

    /// The most bytes storage's upload id may take (S3's are about 100): what storage answers goes into the batch's
    /// snapshot, so it is bounded like every string a record supplies (DESIGN §2.1); a longer one is refused.
    public static let maxUploadIdBytes = 1024
    /// The most bytes a part's `ETag` may take (S3's: a quoted 32-digit MD5, 34 bytes); a longer one is refused.
    public static let maxETagBytes = 256
    /// The most bytes a ``sourceVersion`` may take (a `path` source's: at most 82); a longer one is not kept.
    public static let maxSourceVersionBytes = 128

    /// Whether storage's `value` fits `maxBytes` and holds no control character: the test an upload id and an ETag
    /// pass before they are kept.
    public static func isKeepable(_ value: String, maxBytes: Int) -> Bool {
        !value.isEmpty && value.utf8.count <= maxBytes && value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }

    /// `version` when it is one to keep (``isKeepable(_:maxBytes:)`` within ``maxSourceVersionBytes``), else nil: an
    /// upload then records no version, and its next attempt hashes the source.
    public static func keepableVersion(_ version: String?) -> String? {
        version.flatMap { isKeepable($0, maxBytes: maxSourceVersionBytes) ? $0 : nil }
    }

    /// The object key the upload writes.
    public var key: String
    /// Storage's id of the upload.
    public var uploadId: String
    /// The size of every part but the last.
    public var partSize: Int64
    /// Hex SHA-256 of the whole file the upload was started for: only bytes with the same digest resume it.
    public var sha256: String
    /// The source's version when the upload was started, as staging tells it (``StagedFile/sourceVersion``: a `path`
    /// source's size and modification time); nil when staging tells none. A later attempt whose source shows the same
    /// version takes `sha256` as its digest instead of reading the whole file again to compute it (DESIGN §12).
    public var sourceVersion: String?
    /// The parts storage has, by number.
    public var parts: [Part]

    public init(key: String, uploadId: String, partSize: Int64, sha256: String, sourceVersion: String? = nil,
                parts: [Part] = []) {
        self.key = key
        self.uploadId = uploadId
        self.partSize = partSize
        self.sha256 = sha256
        self.sourceVersion = sourceVersion
        self.parts = parts
    }
}
