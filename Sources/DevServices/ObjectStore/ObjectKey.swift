/// A validated object key: `/`-separated segments, none empty, `.` or `..`, no control characters.
public struct ObjectKey: Sendable, Hashable, CustomStringConvertible {
    /// The key as given, e.g. `trip-42/f1/photo.jpg`.
    public let rawValue: String

    /// Validates `rawValue`: 1–1024 UTF-8 bytes, segments of 1–255 bytes, none `.` or `..`, no control bytes.
    public init(_ rawValue: String) throws {
        let bytes = Array(rawValue.utf8)
        let segments = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...1024).contains(bytes.count),
              !bytes.contains(where: { $0 < 0x20 || $0 == 0x7f }),
              segments.allSatisfy({ (1...255).contains($0.utf8.count) && $0 != "." && $0 != ".." })
        else { throw DevServicesError.invalidObjectKey(rawValue) }
        self.rawValue = rawValue
    }

    /// The key.
    public var description: String { rawValue }

    /// The key's `/`-separated segments.
    var segments: [Substring] { rawValue.split(separator: "/") }

    /// The decoded request path for this key, as the server sees it and as URLs are signed: `/` + key.
    var requestPath: String { "/" + rawValue }

    /// The path to put in a URL: `/` + each segment percent-encoded (all but unreserved characters).
    var urlPath: String { "/" + segments.map { Self.percentEncoded($0) }.joined(separator: "/") }

    /// The file id of a key laid out as `{batchId}/{fileId}/{name}`, the presign service's layout.
    var fileId: String? {
        let segments = segments
        return segments.count >= 3 ? String(segments[1]) : nil
    }

    /// `text` with every byte but unreserved ASCII (`A–Z a–z 0–9 - . _ ~`) as `%XX`.
    static func percentEncoded(_ text: Substring) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
