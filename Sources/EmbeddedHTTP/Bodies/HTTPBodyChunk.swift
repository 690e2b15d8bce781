/// The outcome of one `HTTPBodyProducer.produce` call.
public enum HTTPBodyChunk: Sendable, Hashable {
    /// This many bytes (at least 1) were written into the buffer.
    case bytes(Int)
    /// The body is complete.
    case end
    /// The body cannot be completed; the server closes the connection.
    case failure
}
