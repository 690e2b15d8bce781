/// What the server does with a request once its head has been handled.
public enum HTTPRequestAction {
    /// Answer now; a request body, if any, is not read and the connection is closed after the answer.
    case respond(HTTPResponse)
    /// Stream the request body into the receiver; its `finish()` gives the answer.
    case readBody(any HTTPBodyReceiver)
    /// Close the connection without an answer.
    case dropConnection
}

/// Receives one request's body as it arrives and produces the answer at its end.
///
/// All calls for one request come from that connection's thread, in order: `receive` per chunk, then exactly one
/// of `finish` (the body is complete) or `abandon` (the connection ended first). A receiver may block in `receive`
/// (to stall or slow the upload): the connection has a thread of its own.
public protocol HTTPBodyReceiver: AnyObject {
    /// Consumes the next chunk of the body; the bytes are only valid during the call.
    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition
    /// The body is complete: the answer to send.
    func finish() -> HTTPRequestCompletion
    /// The connection ended before `finish`; release whatever the request held (partial files…).
    func abandon()
}

/// Whether to keep reading a request body.
public enum HTTPBodyDisposition: Sendable, Hashable {
    /// Keep reading.
    case proceed
    /// Close the connection now, without an answer.
    case dropConnection
}

/// How a fully received request ends.
public enum HTTPRequestCompletion {
    /// Send this answer.
    case respond(HTTPResponse)
    /// Close the connection without an answer.
    case dropConnection
}
