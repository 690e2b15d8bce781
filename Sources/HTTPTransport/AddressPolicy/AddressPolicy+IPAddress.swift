import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension AddressPolicy {
    /// An IPv4 or IPv6 address as a number, as the kernel connects to it.
    public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
        /// An IPv4 address, most significant byte first.
        case v4(UInt32)
        /// An IPv6 address, most significant byte first.
        case v6(UInt128)

        /// Parses the plain textual forms only (`a.b.c.d`, RFC 4291 IPv6, optionally in brackets); the decimal,
        /// octal, hex and short IPv4 spellings some URL parsers accept are not addresses here.
        public init?(_ text: String) {
            var text = text
            if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
            if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                self = .v4(UInt32(bigEndian: v4.s_addr))
                return
            }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
            self = .v6(withUnsafeBytes(of: &v6) { Self.number(fromNetworkBytes: $0) })
        }

        /// An address from 4 or 16 bytes in network order; nil for any other length.
        public init?(networkBytes bytes: UnsafeRawBufferPointer) {
            switch bytes.count {
            case 4: self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
            case 16: self = .v6(Self.number(fromNetworkBytes: bytes))
            default: return nil
            }
        }

        private static func number(fromNetworkBytes bytes: UnsafeRawBufferPointer) -> UInt128 {
            bytes.reduce(0) { $0 << 8 | UInt128($1) }
        }

        /// The IPv4 address an IPv6 address carries and is delivered to: IPv4-mapped (`::ffff:a.b.c.d`),
        /// IPv4-translated (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`).
        public var embeddedIPv4: IPAddress? {
            guard case .v6(let value) = self else { return nil }
            let low32 = UInt32(truncatingIfNeeded: value)
            if value >> 32 == 0xFFFF || value >> 32 == 0xFFFF_0000 || value >> 32 == 0x0064_FF9B_0000_0000_0000_0000 {
                return .v4(low32)
            }
            if value >> 112 == 0x2002 {
                return .v4(UInt32(truncatingIfNeeded: value >> 80))
            }
            return nil
        }

        /// The usual textual form (`inet_ntop`).
        public var description: String {
            switch self {
            case .v4(let value):
                var address = in_addr(s_addr: value.bigEndian)
                return Self.text(AF_INET, &address, length: INET_ADDRSTRLEN)
            case .v6(let value):
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) { bytes in
                    for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: value >> (8 * (15 - index))) }
                }
                return Self.text(AF_INET6, &address, length: INET6_ADDRSTRLEN)
            }
        }

        private static func text(_ family: Int32, _ address: UnsafeRawPointer, length: Int32) -> String {
            var buffer = [CChar](repeating: 0, count: Int(length))
            guard inet_ntop(family, address, &buffer, socklen_t(length)) != nil else { return "?" }
            let end = buffer.firstIndex(of: 0) ?? buffer.count
            return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
