extension AddressPolicy {
    /// A CIDR block of IPv4 or IPv6 addresses; an exact address is a block of one.
    public struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
        /// The first address of the block (host bits cleared).
        public let network: IPAddress
        /// Leading bits that must match: 0…32 for IPv4, 0…128 for IPv6.
        public let prefixLength: Int

        /// `address/prefix` or a bare address (plain textual forms only); nil for anything else.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else { return nil }
            var length = address.bitWidth
            if parts.count == 2 {
                guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let given = Int(parts[1]),
                      (0...address.bitWidth).contains(given)
                else { return nil }
                length = given
            }
            self.init(address, prefixLength: length)
        }

        /// The block of the `prefixLength` leading bits of `address`.
        public init(_ address: IPAddress, prefixLength: Int) {
            self.prefixLength = prefixLength
            switch address {
            case .v4(let value): network = .v4(prefixLength == 0 ? 0 : value & ~(UInt32.max >> prefixLength))
            case .v6(let value): network = .v6(prefixLength == 0 ? 0 : value & ~(UInt128.max >> prefixLength))
            }
        }

        /// Whether `address` is in the block (an IPv4 block never holds an IPv6 address, nor the reverse).
        public func contains(_ address: IPAddress) -> Bool {
            switch (network, address) {
            case (.v4(let base), .v4(let value)):
                return prefixLength == 0 || (value ^ base) >> (32 - prefixLength) == 0
            case (.v6(let base), .v6(let value)):
                return prefixLength == 0 || (value ^ base) >> (128 - prefixLength) == 0
            default:
                return false
            }
        }

        /// `network/prefix`.
        public var description: String { "\(network)/\(prefixLength)" }
    }
}

extension AddressPolicy.IPAddress {
    /// 32 or 128.
    var bitWidth: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }
}
