/// An uploaded part as CompleteMultipartUpload lists it: its number, the `ETag` S3 answered for it and, when
/// the upload was created with a SHA-256 checksum, the part's own checksum (base64).
public struct S3CompletedPart: Sendable, Hashable {
    /// The part's number, 1…10,000.
    public var partNumber: Int
    /// The `ETag` header of the UploadPart answer, quotes included, as S3 sent it.
    public var etag: String
    /// The base64 SHA-256 of the part, when the upload carries checksums.
    public var checksumSHA256: String?

    /// A completed part.
    public init(partNumber: Int, etag: String, checksumSHA256: String? = nil) {
        self.partNumber = partNumber
        self.etag = etag
        self.checksumSHA256 = checksumSHA256
    }
}
