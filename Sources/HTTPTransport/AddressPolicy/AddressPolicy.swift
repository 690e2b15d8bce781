import Foundation

/// Which network addresses a source download may connect to: public unicast addresses, plus what the operator
/// allow-lists (`sources.allowHosts`).
///
/// Loopback, private (RFC 1918, CGNAT, unique-local), link-local (cloud metadata at 169.254.169.254 included),
/// unspecified, multicast, documentation, reserved and other special addresses are refused. The check runs on the
/// address actually connected to (`HTTPClient.download(addressPolicy:)`), so a name that resolves — or re-resolves —
/// to a refused address is refused too, whatever way the URL spelled it. An allow-list entry is an exact host name
/// (then that host may resolve anywhere), an exact IP, or a CIDR range, IPv4 or IPv6.
public struct AddressPolicy: Sendable, Hashable {
    /// Host names whose connections are never refused (lower case, no trailing dot).
    public let allowedHostNames: Set<String>
    /// Address blocks never refused; an exact IP is a block of one.
    public let allowedBlocks: [CIDRBlock]

    /// A policy that lets only public unicast addresses through.
    public static let publicOnly = AddressPolicy(hostNames: [], ranges: [])

    /// A policy from `sources.allowHosts` entries.
    ///
    /// - Throws: `HTTPTransportError` with code `.invalidAddressPolicy` for an entry that is neither an IP, a CIDR
    ///   range nor a host name (wildcards and numeric forms such as `0177.0.0.1` included: name the address plainly).
    public init(allowHosts entries: [String]) throws(HTTPTransportError) {
        var names: Set<String> = []
        var ranges: [CIDRBlock] = []
        for entry in entries {
            let text = entry.trimmingCharacters(in: .whitespaces)
            if let range = CIDRBlock(text) {
                ranges.append(range)
            } else if let name = Self.hostName(text) {
                names.insert(name)
            } else {
                throw HTTPTransportError(
                    .invalidAddressPolicy, "'\(entry)' is not a host name, an IP address or a CIDR range", retryable: false)
            }
        }
        self.init(hostNames: names, ranges: ranges)
    }

    private init(hostNames: Set<String>, ranges: [CIDRBlock]) {
        allowedHostNames = hostNames
        allowedBlocks = ranges
    }

    /// Why a connection to `address`, made for a URL naming `host`, is refused; nil when it is allowed.
    ///
    /// An allow-listed host name lets any address through; otherwise an allow-listed range must hold the address
    /// (an IPv4-mapped IPv6 address also matches as its IPv4 form), or the address must not be special.
    public func refusal(of address: IPAddress, host: String?) -> String? {
        if let host, let name = Self.hostName(host), allowedHostNames.contains(name) { return nil }
        let forms = [address] + (address.embeddedIPv4.map { [$0] } ?? [])
        if forms.contains(where: { form in allowedBlocks.contains { $0.contains(form) } }) { return nil }
        guard let kind = AddressPolicy.specialKind(of: address) else { return nil }
        return "\(address) is \(kind) and not in sources.allowHosts"
    }

    /// A host name in canonical form (lower case, no trailing dot, IPv6 brackets removed), or nil when `text` is
    /// not a host name. A name whose last label is numeric is not a host name: it is an address in disguise.
    static func hostName(_ text: String) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
        guard !name.isEmpty, name.count <= 253,
              labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(allowed.contains) }),
              let last = labels.last, !last.allSatisfy(\.isNumber), !last.hasPrefix("0x")
        else { return nil }
        return name
    }
}
