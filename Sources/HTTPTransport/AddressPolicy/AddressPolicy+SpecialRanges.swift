extension AddressPolicy {
    /// The blocks refused unless allow-listed, each with what it is; the first match names the refusal.
    ///
    /// IANA's special-purpose registries (RFC 6890 and successors) minus nothing: anything that is not a globally
    /// routed unicast address, plus the one cloud metadata address that sits in public space (Azure's wire server).
    static let specialRanges: [(block: CIDRBlock, kind: String)] = [
        ("0.0.0.0/8", "an unspecified (this-network) address"),
        ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a shared (CGNAT) address"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local (cloud metadata) address"),
        ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "an IETF protocol (metadata) address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a 6to4 relay address"),
        ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved or broadcast address"),
        ("168.63.129.16/32", "a cloud metadata address"),
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("::/96", "an IPv4-compatible (deprecated) address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001::/23", "an IETF protocol address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("fc00::/7", "a unique-local (private) address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"),
        ("ff00::/8", "a multicast address"),
    ].map { (CIDRBlock($0.0)!, $0.1) }

    /// What kind of special address `address` is, or nil for a public unicast address. An IPv6 address that
    /// carries an IPv4 address (mapped, translated, NAT64, 6to4) is judged by that IPv4 address too.
    static func specialKind(of address: IPAddress) -> String? {
        if let match = specialRanges.first(where: { $0.block.contains(address) }) { return match.kind }
        if let embedded = address.embeddedIPv4, let kind = specialKind(of: embedded) {
            return "\(kind) inside an IPv6 address"
        }
        return nil
    }
}
