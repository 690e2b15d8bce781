extension HTTPTransportError.Code {
    /// A download connected — or was about to connect — to an address its `AddressPolicy` refuses.
    public static let addressRefused = HTTPTransportError.Code(rawValue: "ERR_HTTP_ADDRESS_REFUSED")
    /// A download was redirected to a scheme other than `http`/`https`.
    public static let redirectRefused = HTTPTransportError.Code(rawValue: "ERR_HTTP_REDIRECT_REFUSED")
    /// A download followed more redirects than allowed (3).
    public static let tooManyRedirects = HTTPTransportError.Code(rawValue: "ERR_HTTP_TOO_MANY_REDIRECTS")
    /// An `AddressPolicy` allow-list entry is not a host name, an IP or a CIDR range.
    public static let invalidAddressPolicy = HTTPTransportError.Code(rawValue: "ERR_HTTP_INVALID_ADDRESS_POLICY")
}
