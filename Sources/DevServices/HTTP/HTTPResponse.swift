import UploadEngine

/// A handler's answer: status, headers and a body.
///
/// A response is built and consumed on the connection's own thread; its body producer is never shared.
public struct HTTPResponse {
    /// The status code.
    public var status: Int
    /// Response headers; `Content-Length` is set by the server from the body.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: HTTPResponseBody

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: HTTPResponseBody = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with an in-memory body and its content type.
    public init(status: Int, contentType: String, body: [UInt8], headers: [HTTPHeader] = []) {
        self.init(status: status, headers: [HTTPHeader("Content-Type", contentType)] + headers, body: .bytes(body))
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }
}

/// Where a response's bytes come from.
public enum HTTPResponseBody {
    /// Bytes held in memory (copied into the server when the response is queued).
    case bytes([UInt8])
    /// A file, streamed by the server from disk; a file that cannot be opened answers 500 instead.
    case file(path: String)
    /// Bytes produced on demand, `length` bytes in all (nil: unknown length, sent chunked).
    case stream(length: UInt64?, producer: any HTTPBodyProducer)
}

/// Produces a streamed response body, one block at a time, on the connection's thread.
///
/// The producer may block (for example to limit the rate): each connection has a thread of its own.
public protocol HTTPBodyProducer: AnyObject {
    /// Writes the next bytes of the body, which start at `offset`, into `buffer`.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk
}

/// The outcome of one `HTTPBodyProducer.produce` call.
public enum HTTPBodyChunk: Sendable, Hashable {
    /// This many bytes (at least 1) were written into the buffer.
    case bytes(Int)
    /// The body is complete.
    case end
    /// The body cannot be completed; the server closes the connection.
    case failure
}
