import Foundation
import WireFormat

/// Where a bucket's objects live: scheme, the authority requests go to, and the path in front of every key
/// (`/bucket` in path style, nothing in virtual-hosted style).
struct S3BucketEndpoint: Sendable, Hashable {
    /// `http` or `https`.
    var scheme: String
    /// `host[:port]`, with the bucket in front in virtual-hosted style.
    var authority: String
    /// `/bucket` in path style, empty in virtual-hosted style.
    var bucketPath: String

    /// Resolves the configured endpoint.
    /// - Throws: `S3Error` `.invalidConfiguration` for an endpoint that is not `http(s)://host[:port]`.
    init(configuration: S3PresignerConfiguration) throws {
        let endpoint = configuration.resolvedEndpoint
        guard let url = URLComponents(string: endpoint), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty,
            url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw S3Error(
                .invalidConfiguration, "presign.s3 endpoint: must be http(s)://host[:port]; got \"\(endpoint)\"")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        // HTTP clients leave a default port out of Host, and the signed host must be what they send.
        let port = url.port.flatMap { $0 == defaultPort ? nil : $0 }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let hostPort = bracketed.lowercased() + (port.map { ":\($0)" } ?? "")
        self.scheme = scheme
        if configuration.pathStyle {
            authority = hostPort
            bucketPath = "/" + configuration.bucket
        } else {
            authority = configuration.bucket + "." + hostPort
            bucketPath = ""
        }
    }

    /// A request for `key` (nil: the bucket itself), to be signed.
    func request(
        method: String, key: String?, query: [SigV4QueryItem] = [], headers: [HTTPHeader] = [], payloadHash: String
    ) -> SigV4Request {
        let path: String
        if let key {
            path = bucketPath + "/" + key
        } else {
            path = bucketPath.isEmpty ? "/" : bucketPath
        }
        return SigV4Request(
            method: method, scheme: scheme, authority: authority, path: path, query: query, headers: headers,
            payloadHash: payloadHash)
    }

    /// The key of an object URL made by this endpoint (presigned or not; the query is ignored), or nil when `url`
    /// addresses another endpoint or bucket, or no object.
    func key(inURL url: String) -> String? {
        let prefix = scheme + "://" + authority + SigV4Encoding.uriEncode(bucketPath, encodeSlash: false) + "/"
        guard url.hasPrefix(prefix) else { return nil }
        let path = url.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "#" }
        guard let key = String(path).removingPercentEncoding, !key.isEmpty else { return nil }
        return key
    }

    /// The object's URL without a query.
    func objectURL(key: String) -> String {
        request(method: "GET", key: key, payloadHash: SigV4Request.unsignedPayload).url(canonicalQuery: "")
    }
}
