/// A stable error code as it appears on the wire (`error.code` in events and results).
///
/// Codes are open: a presign service may refuse a file with a code of its own, which is carried through
/// unchanged. The static members are the codes Attache itself produces.
public struct UploadErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// The file has no bytes.
    public static let fileDataEmpty = UploadErrorCode("ERR_FILE_DATA_EMPTY")
    /// The file item is invalid: bad or live duplicate id, bad source, bad name, contradicting content.
    public static let invalidFileObject = UploadErrorCode("ERR_INVALID_FILE_OBJECT")
    /// The file is larger than `limits.fileSizeMax` (or inline data larger than `limits.inlineMax`).
    public static let fileSizeExceeded = UploadErrorCode("ERR_FILE_SIZE_EXCEEDED")
    /// The batch has no capacity left for the file.
    public static let fileCountExceeded = UploadErrorCode("ERR_FILE_COUNT_EXCEEDED")
    /// Presigning failed: refused by policy (rejected) or failed in transport (failed).
    public static let presignedURLFailed = UploadErrorCode("ERR_PRESIGNED_URL_FAILED")
    /// The upload URL expired before the transfer started, or storage said so.
    public static let presignedURLExpired = UploadErrorCode("ERR_PRESIGNED_URL_EXPIRED")
    /// Storage refused the upload or the transport failed.
    public static let s3UploadFailed = UploadErrorCode("ERR_S3_UPLOAD_FAILED")
    /// No progress for the stall timeout.
    public static let uploadStalled = UploadErrorCode("ERR_UPLOAD_STALLED")
    /// The upload URL from the presigner is malformed.
    public static let invalidURL = UploadErrorCode("ERR_INVALID_URL")
    /// Fetching the source failed in a way a retry may fix (5xx, network).
    public static let sourceFetchFailed = UploadErrorCode("ERR_SOURCE_FETCH_FAILED")
    /// The source cannot be resolved (404/410, or 401/403 after the one re-sign).
    public static let sourceUnresolvable = UploadErrorCode("ERR_SOURCE_UNRESOLVABLE")
    /// The source is refused by policy (scheme, address, path escape).
    public static let sourceForbidden = UploadErrorCode("ERR_SOURCE_FORBIDDEN")

    /// Every code the contract names (`docs/contract.md`): a closed set, unlike the codes a presign service may
    /// invent, so metrics can label by it without letting a server create series.
    public static let contractCodes: Set<UploadErrorCode> = [
        .fileDataEmpty, .invalidFileObject, .fileSizeExceeded, .fileCountExceeded, .presignedURLFailed,
        .presignedURLExpired, .s3UploadFailed, .uploadStalled, .invalidURL, .sourceFetchFailed, .sourceUnresolvable,
        .sourceForbidden,
    ]

    /// Whether a failure with this code is retryable when nothing else says otherwise.
    public var isRetryableByDefault: Bool {
        switch self {
        case .s3UploadFailed, .uploadStalled, .presignedURLExpired, .invalidURL, .sourceFetchFailed: true
        default: false
        }
    }
}

/// An error about one file. `isRetryable` decides the file's outcome: retryable → failed, else rejected.
public struct UploadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: UploadErrorCode
    public var message: String
    public var isRetryable: Bool
    /// How long the server asked us to wait before trying again (`Retry-After`), if it said.
    public var retryAfter: Duration?

    public init(_ code: UploadErrorCode, _ message: String, retryable: Bool? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = retryable ?? code.isRetryableByDefault
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
