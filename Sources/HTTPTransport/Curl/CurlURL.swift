import CCurl

/// Checks a URL with libcurl's own parser before anything is queued, so a bad URL fails at once.
enum CurlURL {
    /// The schemes the client speaks; everything else is refused up front and by libcurl itself.
    static let allowedSchemes: Set<String> = ["http", "https"]

    /// Throws `.invalidURL` unless `url` is absolute, parses, names a host and uses `http` or `https`.
    static func validate(_ url: String) throws(HTTPTransportError) {
        guard let handle = curl_url() else {
            throw HTTPTransportError(.invalidURL, "cannot allocate a URL parser", retryable: true)
        }
        defer { curl_url_cleanup(handle) }
        // Redacting is only for the error text: not worth its cost on every request that passes.
        var redacted: String { RedactedURL.redact(url) }
        let parsed = curl_url_set(handle, CURLUPART_URL, url, 0)
        guard parsed == CURLUE_OK else {
            let reason = String(cString: curl_url_strerror(parsed))
            throw HTTPTransportError(.invalidURL, "malformed URL \(redacted): \(reason)", retryable: false)
        }
        let scheme = part(CURLUPART_SCHEME, of: handle)?.lowercased() ?? ""
        guard allowedSchemes.contains(scheme) else {
            throw HTTPTransportError(
                .invalidURL, "unsupported scheme \"\(scheme)\" in \(redacted): only http and https", retryable: false)
        }
        guard let host = part(CURLUPART_HOST, of: handle), !host.isEmpty else {
            throw HTTPTransportError(.invalidURL, "URL \(redacted) has no host", retryable: false)
        }
    }

    private static func part(_ which: CURLUPart, of handle: OpaquePointer) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
