import Synchronization
import WireFormat

/// Checks request URLs as `CurlURL.validate` does, without parsing again a URL whose origin libcurl already took.
///
/// Whether libcurl's parser takes a URL is decided by its scheme and authority (the origin, `scheme://authority`),
/// and by the rest only through bytes it refuses anywhere (control bytes, spaces) and the total length: the path,
/// query and fragment are stored as they come. Nearly every request a worker makes goes to an origin it has seen
/// (its storage, its presign endpoint, its chat API), and the full parse of a presigned URL cost some 11,000
/// instructions and nine allocations a request. So a URL whose origin is remembered, and whose rest holds only
/// characters RFC 3986 allows, passes without a parse; anything else is parsed in full, and a URL that passes
/// leaves its origin remembered. `ParsedOriginsTests` holds the rule against the libcurl the build links, over
/// thousands of drawn URLs.
final class ParsedOrigins: Sendable {
    /// How many origins are remembered; a new one replaces the one remembered longest ago.
    static let capacity = 64
    /// Longer URLs always get the full parse (libcurl refuses inputs past its own limit of 8,000,000 bytes).
    static let longestRemembered = 65_536

    private let remembered = Mutex<Origins>(Origins())

    private struct Origins {
        var list: [[UInt8]] = []
        var oldest = 0
    }

    /// Throws as `CurlURL.validate` does.
    func validate(_ url: String) throws(HTTPTransportError) {
        if remembers(url) { return }
        try CurlURL.validate(url)
        var url = url
        url.withUTF8 { bytes in
            guard let origin = Self.originLength(bytes) else { return }
            let prefix = [UInt8](bytes[..<origin])
            remembered.withLock { known in
                guard !known.list.contains(prefix) else { return }
                if known.list.count < Self.capacity {
                    known.list.append(prefix)
                } else {
                    known.list[known.oldest] = prefix
                    known.oldest = (known.oldest + 1) % Self.capacity
                }
            }
        }
    }

    /// Whether `url` passes without a parse: its origin is remembered and its rest holds only RFC 3986 characters.
    func remembers(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            guard let origin = Self.originLength(bytes) else { return false }
            let prefix = UnsafeBufferPointer(rebasing: bytes[..<origin])
            return remembered.withLock { known in
                known.list.contains { $0.count == prefix.count && $0.elementsEqual(prefix) }
            }
        }
    }

    /// The length of `url`'s origin when the URL is `scheme://authority`, with an authority that is not empty,
    /// followed by nothing, or by `/`, `?` or `#` and then only RFC 3986 characters; nil for any other URL, which
    /// gets the full parse.
    static func originLength(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        guard url.count <= longestRemembered, let (scheme, authority) = URLPrefix.parts(of: url),
              scheme.allSatisfy({ isSchemeByte(url[$0]) }),
              // libcurl reads `http:///host` as `http://host`: an empty authority is left to the full parse.
              !authority.isEmpty else { return nil }
        let characters = uriCharacters
        for index in authority.upperBound..<url.count where !characters.contains(url[index]) { return nil }
        return authority.upperBound
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Unreserved, reserved, and `%`: RFC 3986's characters, none of which libcurl refuses.
    private static let uriCharacters = ASCIISet(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%:/?#[]@!$&'()*+,;=")
}

/// A set of ASCII bytes as two bit masks: each of a presigned URL's several hundred bytes is looked up in one shift.
struct ASCIISet {
    private let low: UInt64, high: UInt64

    init(_ members: StaticString) {
        var low: UInt64 = 0, high: UInt64 = 0
        members.withUTF8Buffer { bytes in
            for byte in bytes where byte < 128 {
                if byte < 64 { low |= 1 << byte } else { high |= 1 << (byte - 64) }
            }
        }
        (self.low, self.high) = (low, high)
    }

    func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return low & (1 << byte) != 0 }
        return byte < 128 && high & (1 << (byte - 64)) != 0
    }
}
