/// SigV4's percent-encoding (RFC 3986): only `A–Z a–z 0–9 - . _ ~` stay as they are, every other UTF-8 byte
/// becomes `%XX` in upper case. Spaces are `%20`, never `+`.
public enum SigV4Encoding {
    /// Encodes `text`; `/` is kept when `encodeSlash` is false (object key paths) and encoded otherwise
    /// (query names and values).
    public static func uriEncode(_ text: String, encodeSlash: Bool = true) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (byte == UInt8(ascii: "/") && !encodeSlash) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
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
}
