import WireFormat

/// A handler's answer: status, headers and a body.
///
/// A response is built and consumed on the connection's own thread; its body producer is never shared.
public struct ServerResponse {
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
    public static func text(_ status: Int, _ text: String, headers: [HTTPHeader] = []) -> ServerResponse {
        ServerResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }
}
