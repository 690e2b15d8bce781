import Foundation
import WireFormat

/// A signed request, ready for an HTTP client: call `method` on `url` with exactly `headers` and `body`.
public struct SigV4SignedRequest: Sendable, Hashable {
    /// The HTTP method to use.
    public var method: String
    /// The URL to call. A presigned URL is a credential: log `redactedURL` instead.
    public var url: String
    /// Headers to send, in order. `Host` is not among them: the HTTP client derives it from `url`, and the value
    /// signed is that same authority.
    public var headers: [HTTPHeader]
    /// The body whose hash was signed (empty for presigned uploads, whose body the caller streams).
    public var body: Data
    /// The hex signature (also inside `url` or the `Authorization` header).
    public var signature: String
    /// When a presigned URL stops working; nil for header-signed requests.
    public var expiresAt: Date?

    /// A signed request from its parts.
    public init(
        method: String, url: String, headers: [HTTPHeader], body: Data = Data(), signature: String,
        expiresAt: Date? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.signature = signature
        self.expiresAt = expiresAt
    }

    /// `url` without its query, safe to log.
    public var redactedURL: String {
        // Searched as bytes: `?` is ASCII, so its UTF-8 position is a valid index, and no grapheme is walked.
        guard let mark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        return String(url[..<mark])
    }

    /// The value of the first header called `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
