/// Why an embedded HTTP server could not start: a bad address, a busy port, or libmicrohttpd refusing to start.
public struct EmbeddedHTTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code string for logs and for callers that react to one kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as written in logs.
        public let rawValue: String
        /// A code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// The host is not an IPv4 or IPv6 address (nor `localhost`).
        public static let invalidAddress = Code(rawValue: "ERR_EMBEDDED_HTTP_INVALID_ADDRESS")
        /// Another socket is already listening on that address and port.
        public static let addressInUse = Code(rawValue: "ERR_EMBEDDED_HTTP_ADDRESS_IN_USE")
        /// The socket could not be created, bound or put in listening state for another reason.
        public static let bindFailed = Code(rawValue: "ERR_EMBEDDED_HTTP_BIND_FAILED")
        /// libmicrohttpd would not start its daemon on the bound socket.
        public static let startFailed = Code(rawValue: "ERR_EMBEDDED_HTTP_START_FAILED")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people: names the address and, for socket failures, the system's reason.
    public var message: String
    /// The `errno` of the socket call that failed, when one did.
    public var systemErrorNumber: Int32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, systemErrorNumber: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemErrorNumber = systemErrorNumber
    }

    /// `CODE: message`.
    public var description: String { "\(code): \(message)" }
}
