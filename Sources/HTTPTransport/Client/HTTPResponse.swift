import Foundation
import WireFormat

/// An HTTP answer: the final status, its header fields and the body the client kept in memory.
public struct HTTPResponse: Sendable, Hashable {
    /// The final status code.
    public var status: Int
    /// Header fields of the final response (interim `100 Continue` and followed redirects are dropped), in order.
    public var headers: [HTTPHeader]
    /// The body: the whole body for `send`; for `upload` at most 64 KiB (enough for an error document);
    /// for `download` empty on 2xx (the bytes are in the file) and at most 64 KiB otherwise.
    public var body: Data

    /// A response, as the client builds it (and tests do).
    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The first value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
