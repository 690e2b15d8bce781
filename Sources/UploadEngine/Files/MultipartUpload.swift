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

    /// The object key the upload writes.
    public var key: String
    /// Storage's id of the upload.
    public var uploadId: String
    /// The size of every part but the last.
    public var partSize: Int64
    /// Hex SHA-256 of the whole file the upload was started for: only bytes with the same digest resume it.
    public var sha256: String
    /// The parts storage has, by number.
    public var parts: [Part]

    public init(key: String, uploadId: String, partSize: Int64, sha256: String, parts: [Part] = []) {
        self.key = key
        self.uploadId = uploadId
        self.partSize = partSize
        self.sha256 = sha256
        self.parts = parts
    }
}
