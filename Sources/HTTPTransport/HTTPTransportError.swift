/// An error of the HTTP layer: a request that could not be made, was cut off, or got an unusable answer.
///
/// Messages never contain a URL's query string (presigned URLs carry credentials there).
public struct HTTPTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code string for logs and metrics.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as written in logs.
        public let rawValue: String
        /// A code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// The URL is malformed, has no host, or its scheme is not `http`/`https`.
        public static let invalidURL = Code(rawValue: "ERR_HTTP_INVALID_URL")
        /// A header name or value (or the method) holds a control character: the request is refused, not sent.
        public static let invalidHeader = Code(rawValue: "ERR_HTTP_INVALID_HEADER")
        /// libcurl failed the transfer: resolve, connect, reset, TLS, timeout, protocol.
        public static let transport = Code(rawValue: "ERR_HTTP_TRANSPORT")
        /// No byte moved in either direction for the stall timeout.
        public static let stalled = Code(rawValue: "ERR_HTTP_STALLED")
        /// The response body is larger than the caller allowed.
        public static let sizeLimitExceeded = Code(rawValue: "ERR_HTTP_SIZE_LIMIT")
        /// Reading the file to send or writing the file to receive failed.
        public static let localFile = Code(rawValue: "ERR_HTTP_LOCAL_FILE")
        /// The server answered with a status the caller does not accept.
        public static let unexpectedStatus = Code(rawValue: "ERR_HTTP_STATUS")
        /// The server's answer could not be understood.
        public static let malformedResponse = Code(rawValue: "ERR_HTTP_MALFORMED_RESPONSE")
        /// The client was shut down while the request was waiting.
        public static let shutDown = Code(rawValue: "ERR_HTTP_SHUT_DOWN")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A human-readable account, with URLs redacted.
    public var message: String
    /// libcurl's `CURLcode` for `.transport` and `.invalidURL` failures libcurl reported.
    public var curlCode: Int?
    /// The HTTP status, for `.unexpectedStatus` (and `.malformedResponse` when a status was received).
    public var status: Int?
    /// How long the server asked to wait before trying again (`Retry-After`).
    public var retryAfter: Duration?
    /// Whether sending the same request again may succeed.
    public var isRetryable: Bool

    /// An error; `retryable` is required because only the thrower knows.
    public init(
        _ code: Code, _ message: String, curlCode: Int? = nil, status: Int? = nil, retryAfter: Duration? = nil,
        retryable: Bool
    ) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.status = status
        self.retryAfter = retryAfter
        self.isRetryable = retryable
    }

    /// `CODE: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
