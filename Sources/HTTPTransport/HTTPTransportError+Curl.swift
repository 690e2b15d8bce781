import CCurl

extension HTTPTransportError {
    /// libcurl failures that sending again cannot fix: the URL, the library itself, or a certificate.
    private static let permanentCurlCodes: Set<CURLcode> = [
        CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT,
        CURLE_UNKNOWN_OPTION, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
        CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_TOO_MANY_REDIRECTS,
    ]

    /// The error for a transfer libcurl ended with `code`; the message keeps libcurl's detail, minus the query.
    static func curl(_ code: CURLcode, detail: String, _ spec: TransferSpec) -> HTTPTransportError {
        let request = spec.request
        var reason = CurlRuntime.describe(code)
        let detail = RedactedURL.scrub(detail, of: request.url)
        if !detail.isEmpty, detail != reason { reason += ": \(detail)" }
        let isURLProblem = code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL
        return HTTPTransportError(
            isURLProblem ? .invalidURL : .transport,
            "\(reason) (\(request.method) \(request.redactedURL))",
            curlCode: Int(code.rawValue),
            retryable: !permanentCurlCodes.contains(code))
    }
}
