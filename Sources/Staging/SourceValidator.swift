import HTTPTransport
import WireFormat

/// What lets the origin confirm that a cached source is still the object a URL names: the `ETag` of the answer
/// it was fetched with, else its `Last-Modified`.
///
/// A cached entry is reused only after a conditional GET of the job's own URL carrying this validator is answered
/// 304, so the cache never serves bytes that URL is not authorised to fetch. Values are kept only when they are
/// short printable ASCII: they go back out in a request header.
struct SourceValidator: Sendable, Hashable {
    /// The answer's `ETag`, as sent (quotes and `W/` included).
    var etag: String?
    /// The answer's `Last-Modified`, as sent.
    var lastModified: String?

    /// Longer values are not kept (no real validator comes close).
    static let maximumLength = 512

    /// A validator as the cache index recorded it.
    init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validator of a 2xx answer; nil when it carries no usable `ETag` or `Last-Modified`.
    init?(_ response: HTTPResponse) {
        etag = response.header("ETag").flatMap(Self.usable)
        lastModified = response.header("Last-Modified").flatMap(Self.usable)
        if etag == nil && lastModified == nil { return nil }
    }

    /// The conditional request header: `If-None-Match` with the ETag, else `If-Modified-Since`.
    var conditionalHeader: HTTPHeader {
        if let etag { HTTPHeader("If-None-Match", etag) } else { HTTPHeader("If-Modified-Since", lastModified ?? "") }
    }

    private static func usable(_ value: String) -> String? {
        guard !value.isEmpty, value.utf8.count <= maximumLength,
              value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        return value
    }
}
