import EmbeddedHTTP

/// The page's anti-forgery token: random for each dashboard process, written into the page it serves and sent back
/// by the page's script with every control request (``header``). Another site can neither read the page (the
/// same-origin policy, and the `Host` check against DNS rebinding) nor send the header without a preflight this
/// server never answers, so a control request that carries it comes from this dashboard's own page.
struct CSRFToken: Sendable {
    /// The request header that carries it.
    static let header = "X-Attache-CSRF"

    /// 32 random bytes in hex: safe inside an HTML attribute and a header.
    let value: String

    /// A fresh token from the system's secure random source.
    init() {
        var generator = SystemRandomNumberGenerator()
        value = (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
    }

    /// Whether the request carries this token in ``header``.
    func isCarried(by head: HTTPRequestHead) -> Bool {
        guard let offered = head.header(Self.header) else { return false }
        return ConstantTime.equal(offered, value)
    }
}
