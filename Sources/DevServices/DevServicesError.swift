/// An error of the DevServices subsystem, with a stable code.
public struct DevServicesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code, e.g. `ERR_DEVSVC_START_FAILED`.
    public var code: String
    /// What went wrong, for people.
    public var message: String

    /// A server could not bind or start its libmicrohttpd daemon.
    public static func startFailed(_ message: String) -> DevServicesError {
        DevServicesError(code: "ERR_DEVSVC_START_FAILED", message: message)
    }

    /// The object store's directory could not be created or used.
    public static func storage(_ message: String) -> DevServicesError {
        DevServicesError(code: "ERR_DEVSVC_STORAGE", message: message)
    }

    /// An object key is empty, too long, or has an empty, `.` or `..` segment.
    public static func invalidObjectKey(_ key: String) -> DevServicesError {
        DevServicesError(code: "ERR_DEVSVC_INVALID_OBJECT_KEY", message: "invalid object key \"\(key)\"")
    }

    /// Creates an error with a code and a message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `CODE: message`.
    public var description: String { "\(code): \(message)" }
}
