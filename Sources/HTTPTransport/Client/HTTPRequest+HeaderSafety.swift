import WireFormat

extension HTTPRequest {
    /// Throws `.invalidHeader` when a header name or value, or the method, holds a control character.
    ///
    /// The last line of defence behind the checks at every entry point (`HeaderSafety`): whatever slipped through, a
    /// request that would carry a line break into its head fails here instead of going out with a smuggled header.
    /// The message names the header, never its value (it may be a credential).
    func validateHeaders() throws(HTTPTransportError) {
        guard HeaderSafety.isSafe(method) else {
            throw HTTPTransportError(.invalidHeader, "the request method contains control characters", retryable: false)
        }
        for header in headers where !HeaderSafety.isSafe(header.name) || !HeaderSafety.isSafe(header.value) {
            let name = HeaderSafety.isSafe(header.name) ? "'\(header.name.prefix(64))'" : "a header name"
            throw HTTPTransportError(.invalidHeader, "\(name) contains control characters; the request was not sent",
                                     retryable: false)
        }
    }
}
