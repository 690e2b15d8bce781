/// How a fully received request ends.
public enum HTTPRequestCompletion {
    /// Send this answer.
    case respond(ServerResponse)
    /// Close the connection without an answer.
    case dropConnection
}
