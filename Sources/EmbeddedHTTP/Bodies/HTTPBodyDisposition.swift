/// Whether to keep reading a request body.
public enum HTTPBodyDisposition: Sendable, Hashable {
    /// Keep reading.
    case proceed
    /// Close the connection now, without an answer.
    case dropConnection
}
