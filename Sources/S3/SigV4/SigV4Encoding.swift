/// SigV4's percent-encoding (RFC 3986): only `A–Z a–z 0–9 - . _ ~` stay as they are, every other UTF-8 byte
/// becomes `%XX` in upper case. Spaces are `%20`, never `+`.
public enum SigV4Encoding {
    /// Encodes `text`; `/` is kept when `encodeSlash` is false (object key paths) and encoded otherwise
    /// (query names and values).
    public static func uriEncode(_ text: String, encodeSlash: Bool = true) -> String {
        // Most names and values a signer sees need no encoding: they come back as they are, without a copy.
        guard text.utf8.contains(where: { !keeps($0, encodeSlash: encodeSlash) }) else { return text }
        var bytes: [UInt8] = []
        append(text, encodeSlash: encodeSlash, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the encoding of `text` to `bytes`, which it grows at most once.
    private static func append(_ text: String, encodeSlash: Bool, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + text.utf8.count * 3)
        for byte in text.utf8 {
            if keeps(byte, encodeSlash: encodeSlash) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(upperHexDigit(byte >> 4))
                bytes.append(upperHexDigit(byte & 0x0f))
            }
        }
    }

    /// Whether `byte` is one of RFC 3986's unreserved characters.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func keeps(_ byte: UInt8, encodeSlash: Bool) -> Bool {
        isUnreserved(byte) || (byte == UInt8(ascii: "/") && !encodeSlash)
    }

    private static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
