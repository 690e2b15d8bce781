import EmbeddedHTTP

/// Why the admin endpoints could not start on `admin.listen`.
public struct AdminServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code string for logs.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as written in logs.
        public let rawValue: String
        /// A code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// `admin.listen` is not `host:port` with a literal IP address (or `localhost`) as the host.
        public static let invalidListen = Code(rawValue: "ERR_ADMIN_LISTEN_INVALID")
        /// Another socket already listens on `admin.listen`.
        public static let addressInUse = Code(rawValue: "ERR_ADMIN_ADDRESS_IN_USE")
        /// The address could not be bound for another reason, or the server would not start.
        public static let startFailed = Code(rawValue: "ERR_ADMIN_START_FAILED")
    }

    /// What kind of failure this is.
    public var code: Code
    /// The `admin.listen` value that was used.
    public var listen: String
    /// What went wrong, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, listen: String, _ message: String) {
        self.code = code
        self.listen = listen
        self.message = message
    }

    /// The server's start failure, as an admin error for `listen`.
    init(_ error: EmbeddedHTTPError, listen: String) {
        switch error.code {
        case .invalidAddress:
            self.init(.invalidListen, listen: listen, error.message)
        case .addressInUse:
            self.init(.addressInUse, listen: listen,
                      "the address is already in use (another process listens there); choose a free host:port")
        default:
            self.init(.startFailed, listen: listen, error.message)
        }
    }

    /// `CODE: admin.listen <value>: message`, naming the setting an operator has to change.
    public var description: String { "\(code): admin.listen \(listen): \(message)" }
}
