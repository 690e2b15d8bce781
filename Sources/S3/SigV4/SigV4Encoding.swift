/// SigV4's percent-encoding (RFC 3986): only `A–Z a–z 0–9 - . _ ~` stay as they are, every other UTF-8 byte
/// becomes `%XX` in upper case. Spaces are `%20`, never `+`.
public enum SigV4Encoding {
    /// Encodes `text`; `/` is kept when `encodeSlash` is false (object key paths) and encoded otherwise
    /// (query names and values).
    public static func uriEncode(_ text: String, encodeSlash: Bool = true) -> String {
        // Most names and values a signer sees need no encoding: they come back as they are, without a copy.
        guard text.utf8.contains(where: { !keeps($0, encodeSlash: encodeSlash) }) else { return text }
        // Straight into the string's storage, three bytes of room per byte: appending to an array byte by byte
        // checked its capacity and uniqueness each time.
        return String(unsafeUninitializedCapacity: text.utf8.count * 3) { output in
            var written = 0
            for byte in text.utf8 {
                if keeps(byte, encodeSlash: encodeSlash) {
                    output[written] = byte
                    written += 1
                } else {
                    output[written] = UInt8(ascii: "%")
                    output[written + 1] = upperHexDigit(byte >> 4)
                    output[written + 2] = upperHexDigit(byte & 0x0f)
                    written += 3
                }
            }
            return written
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
