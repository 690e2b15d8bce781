import Glibc

/// A numeric IPv4 or IPv6 address to listen on, parsed from the host a caller configured.
///
/// Only literal addresses (and `localhost`, read as `127.0.0.1`) are accepted, so starting a server never waits on
/// name resolution.
struct BindAddress: Sendable, Hashable {
    /// The address family the address belongs to.
    enum Family: Sendable, Hashable {
        case ipv4(in_addr_t)
        case ipv6([UInt8])
    }

    /// The parsed address.
    let family: Family
    /// The address in its canonical text form (`127.0.0.1`, `::1`), without brackets.
    let text: String

    /// Parses `host`: a dotted quad, an IPv6 address (brackets allowed), or `localhost`.
    init(_ host: String) throws(EmbeddedHTTPError) {
        var literal = host
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal.lowercased() == "localhost" { literal = "127.0.0.1" }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, literal, &ipv4) == 1 {
            family = .ipv4(ipv4.s_addr)
            text = Self.canonicalText(AF_INET, ipv4) ?? literal
            return
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, literal, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            family = .ipv6(bytes)
            text = Self.canonicalText(AF_INET6, ipv6) ?? literal
            return
        }
        throw EmbeddedHTTPError(.invalidAddress, "'\(host)' is not an IPv4 or IPv6 address")
    }

    /// Whether this is the any-address (`0.0.0.0` or `::`), which listens on every interface.
    var isWildcard: Bool {
        switch family {
        case .ipv4(let address): return address == 0
        case .ipv6(let bytes): return bytes.allSatisfy { $0 == 0 }
        }
    }

    /// The address as written before `:port`: IPv6 in brackets.
    var hostText: String {
        switch family {
        case .ipv4: return text
        case .ipv6: return "[\(text)]"
        }
    }

    /// The host part of a URL a client on this machine can use: the address itself (IPv6 in brackets), or the
    /// loopback address of the same family for a wildcard, which is not an address a client can connect to.
    var urlHost: String {
        switch family {
        case .ipv4: return isWildcard ? "127.0.0.1" : hostText
        case .ipv6: return isWildcard ? "[::1]" : hostText
        }
    }

    /// `inet_ntop`'s form of a parsed address (`::1` for `0:0:0:0:0:0:0:1`); nil only if it refuses.
    private static func canonicalText<Address>(_ family: Int32, _ address: Address) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = withUnsafeBytes(of: address) { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard written else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
