import WireFormat

/// An HTTP request to sign, described by its parts rather than by a URL so that nothing is encoded twice.
public struct SigV4Request: Sendable, Hashable {
    /// The payload hash of a request whose body is not signed (presigned uploads).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// Hex SHA-256 of the empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The HTTP method, e.g. `PUT`.
    public var method: String
    /// `http` or `https`.
    public var scheme: String
    /// `host` or `host:port` exactly as the HTTP client will send it in `Host` (default ports left out).
    public var authority: String
    /// The unencoded path, starting with `/`. It is encoded once, segment by segment, keeping `/` (S3's rule:
    /// no normalisation, no double encoding).
    public var path: String
    /// Query parameters, unencoded, in any order.
    public var query: [SigV4QueryItem]
    /// Headers to sign and send, besides `host`, which is derived from `authority`.
    public var headers: [HTTPHeader]
    /// Lower-case hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    public var payloadHash: String

    /// A request from its parts; the payload hash defaults to that of an empty body.
    public init(
        method: String, scheme: String = "https", authority: String, path: String = "/",
        query: [SigV4QueryItem] = [], headers: [HTTPHeader] = [], payloadHash: String = SigV4Request.emptyPayloadHash
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }

    /// The path as it appears in the URL and in the canonical request.
    public var encodedPath: String {
        let encoded = SigV4Encoding.uriEncode(path, encodeSlash: false)
        return encoded.utf8.first == UInt8(ascii: "/") ? encoded : "/" + encoded
    }

    /// The headers that get signed: the request's own plus `host`, unless the caller set one.
    var headersWithHost: [HTTPHeader] {
        if headers.contains(where: { $0.name.equalsIgnoringASCIICase("host") }) { return headers }
        return [HTTPHeader("host", authority)] + headers
    }

    /// `scheme://authority/path?query` with the query already in canonical form.
    func url(canonicalQuery: String) -> String {
        url(encodedPath: encodedPath, canonicalQuery: canonicalQuery, signature: nil)
    }

    /// `scheme://authority/path?query[&X-Amz-Signature=…]`, written into one string.
    func url(encodedPath: String, canonicalQuery: String, signature: String?) -> String {
        let signatureField = "&X-Amz-Signature="
        var url = ""
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + encodedPath.utf8.count + 1
                            + canonicalQuery.utf8.count + signatureField.utf8.count + (signature?.utf8.count ?? 0))
        url += scheme
        url += "://"
        url += authority
        url += encodedPath
        if !canonicalQuery.isEmpty {
            url += "?"
            url += canonicalQuery
        }
        if let signature {
            url += canonicalQuery.isEmpty ? "?X-Amz-Signature=" : signatureField
            url += signature
        }
        return url
    }
}
