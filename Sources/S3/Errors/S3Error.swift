import HTTPTransport
/// An error of the S3 storage subsystem: signing, configuration, multipart planning and S3's answers.
public struct S3Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code string for logs and metrics.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code string, e.g. `S3_SERVICE_ERROR`.
        public let rawValue: String
        /// A code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// A configuration value is missing or unusable (bucket, region, endpoint, credentials, prefix, lifetime).
        public static let invalidConfiguration = Code(rawValue: "S3_INVALID_CONFIGURATION")
        /// A request argument is unusable (a checksum that is not a SHA-256 digest, a part number outside 1…10,000).
        public static let invalidRequest = Code(rawValue: "S3_INVALID_REQUEST")
        /// A presigned URL lifetime outside 1 s … 7 days.
        public static let urlLifetimeOutOfRange = Code(rawValue: "S3_URL_LIFETIME_OUT_OF_RANGE")
        /// An object larger than S3 can store (5 TiB), or than 10,000 parts of at most 5 GiB can carry.
        public static let objectTooLarge = Code(rawValue: "S3_OBJECT_TOO_LARGE")
        /// S3 answered with an `<Error>` document (including inside a 200 response).
        public static let serviceError = Code(rawValue: "S3_SERVICE_ERROR")
        /// S3's answer could not be understood.
        public static let malformedResponse = Code(rawValue: "S3_MALFORMED_RESPONSE")
    }

    /// What kind of error this is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error S3 itself reported, for `.serviceError`.
    public var response: S3ErrorResponse?
    /// Whether trying the same call again may succeed.
    public var isRetryable: Bool

    /// An error of `code`; not retryable unless said.
    public init(_ code: Code, _ message: String, response: S3ErrorResponse? = nil, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.response = response
        self.isRetryable = retryable
    }

    /// An error for an `<Error>` answer, retryable when S3 said the fault was on its side.
    public init(_ response: S3ErrorResponse) {
        self.init(.serviceError, response.description, response: response, retryable: response.isRetryable)
    }

    /// `CODE: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
