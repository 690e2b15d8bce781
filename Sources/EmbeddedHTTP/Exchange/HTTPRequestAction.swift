/// What the server does with a request once its head has been handled.
public enum HTTPRequestAction {
    /// Answer now; a request body, if any, is not read and the connection is closed after the answer.
    case respond(ServerResponse)
    /// Stream the request body into the receiver; its `finish()` gives the answer.
    case readBody(any HTTPBodyReceiver)
    /// Close the connection without an answer.
    case dropConnection
}
