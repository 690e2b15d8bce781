/// A `Host` header's value (RFC 9110 §7.2), or an entry naming one: a host name or address and an optional port.
///
/// Names are compared as the parser leaves them: lower case, an IPv6 address in brackets in its canonical form
/// (`[::1]`), so `LOCALHOST:80` and `localhost:80`, `[0:0:0:0:0:0:0:1]` and `[::1]` are the same host.
public struct HTTPHost: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IPv4 address in lower case, or an IPv6 address in brackets.
    public let name: String
    /// The port, when one was written.
    public let port: UInt16?

    /// Parses `name`, `name:port`, `[v6]` or `[v6]:port`; nil for anything else (a scheme, a path, user info, a
    /// wildcard, an empty name, a port out of range).
    public init?(_ text: String) {
        var rest = Substring(text)
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"),
                  let address = try? BindAddress(String(rest[rest.index(after: rest.startIndex)..<close])),
                  case .ipv6 = address.family
            else { return nil }
            name = address.hostText
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            let label = rest[..<end]
            guard !label.isEmpty, label.utf8.count <= 253, label.utf8.allSatisfy(Self.isNameByte) else { return nil }
            name = label.lowercased()
            rest = rest[end...]
        }
        if rest.isEmpty {
            port = nil
        } else {
            let digits = rest.dropFirst()
            guard rest.first == ":", !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let number = UInt16(digits), number > 0
            else { return nil }
            port = number
        }
    }

    /// Creates a host from parts already in canonical form.
    public init(name: String, port: UInt16?) {
        self.name = name
        self.port = port
    }

    /// `name` or `name:port`, as a `Host` header writes it.
    public var description: String { port.map { "\(name):\($0)" } ?? name }

    /// Letters, digits, `-`, `.` and `_` (which some internal names use).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
        default: false
        }
    }
}
