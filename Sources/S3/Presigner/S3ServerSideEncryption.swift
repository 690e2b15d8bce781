import WireFormat

/// Encryption at rest that every upload asks S3 for (`presign.s3.serverSideEncryption`, DESIGN §12): SSE-S3 (`AES256`)
/// or SSE-KMS (`aws:kms`, with the key `presign.s3.kmsKeyId` or else the bucket's default KMS key).
///
/// The headers are signed into each presigned PUT and each CreateMultipartUpload, so an upload that dropped them
/// would not match its signature: storage cannot be made to keep a file unencrypted by the one sending it. Parts of a
/// multipart upload carry nothing: S3 applies the initiation's setting to them.
public struct S3ServerSideEncryption: Sendable, Hashable {
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        case aes256 = "AES256"
        case kms = "aws:kms"
    }

    public var algorithm: Algorithm
    /// The KMS key (id, ARN or alias) for `aws:kms`; nil: the bucket's default.
    public var kmsKeyId: String?

    public init(_ algorithm: Algorithm, kmsKeyId: String? = nil) {
        self.algorithm = algorithm
        self.kmsKeyId = algorithm == .kms ? kmsKeyId : nil
    }

    static let algorithmHeader = "x-amz-server-side-encryption"
    static let keyHeader = "x-amz-server-side-encryption-aws-kms-key-id"

    /// The headers to sign and send.
    var headers: [HTTPHeader] {
        var headers = [HTTPHeader(Self.algorithmHeader, algorithm.rawValue)]
        if let kmsKeyId { headers.append(HTTPHeader(Self.keyHeader, kmsKeyId)) }
        return headers
    }
}
