/// Builds the deterministic object keys `{prefix}/{batchId}/{fileId}/{safe name}`: the same file of the same batch
/// always lands on the same key, so a replayed job overwrites rather than duplicates.
public enum S3ObjectKey {
    /// The longest safe name, in characters (all ASCII).
    public static let maximumSafeNameLength = 128
    /// S3's limit on a key, in UTF-8 bytes.
    public static let maximumKeyLength = 1024
    /// What a name with nothing usable in it becomes.
    public static let fallbackName = "file"

    /// The key of a file: the prefix's segments, then the batch and file ids as one segment each, then the safe
    /// name. Ids are taken verbatim except that `%`, `/` and whole-segment `.`/`..` are escaped, so two different
    /// (batchId, fileId) pairs never share a key and no HTTP client rewrites the path.
    public static func make(prefix: String, batchId: String, fileId: String, name: String) -> String {
        // Written into one string: in `s3` mode every file's presign makes a key, and joining arrays of segments
        // made a dozen strings and arrays per key.
        let batch = segment(batchId), file = segment(fileId), safe = safeName(name)
        var key = ""
        key.reserveCapacity(prefix.utf8.count + batch.utf8.count + file.utf8.count + safe.utf8.count + 3)
        for part in prefix.split(separator: "/") {
            key += part
            key += "/"
        }
        key += batch
        key += "/"
        key += file
        key += "/"
        key += safe
        return key
    }

    /// The batch id of a key made by `make` under `prefix`; nil for a key not laid out so.
    public static func batchId(ofKey key: String, prefix: String) -> String? {
        var rest = Substring(key)
        for part in prefix.split(separator: "/") {
            guard rest.hasPrefix(part + "/") else { return nil }
            rest = rest.dropFirst(part.count + 1)
        }
        let segments = rest.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty, !segments[2].isEmpty else { return nil }
        return unescapedSegment(segments[0])
    }

    /// The id `segment` made this segment from.
    static func unescapedSegment(_ segment: Substring) -> String {
        if segment == "%2E" { return "." }
        if segment == "%2E%2E" { return ".." }
        guard segment.contains("%") else { return String(segment) }
        var out = ""
        var rest = segment
        while let first = rest.first {
            if rest.hasPrefix("%25") {
                out += "%"
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("%2F") {
                out += "/"
                rest = rest.dropFirst(3)
            } else {
                out.append(first)
                rest = rest.dropFirst()
            }
        }
        return out
    }

    /// An id as a single key segment: `%` → `%25`, `/` → `%2F`, and a segment of only `.` or `..` → `%2E`/`%2E%2E`.
    public static func segment(_ id: String) -> String {
        if id == "." { return "%2E" }
        if id == ".." { return "%2E%2E" }
        // An id without either byte (almost every id) has neither character and is kept as it is, without walking
        // its characters. With one, characters decide, as they always have: keys must not change between versions.
        guard id.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "/") }) else { return id }
        var out = ""
        out.reserveCapacity(id.utf8.count + 4)
        for character in id {
            switch character {
            case "%": out += "%25"
            case "/": out += "%2F"
            default: out.append(character)
            }
        }
        return out
    }

    /// A display name reduced to `[A-Za-z0-9._-]`: each run of other characters becomes one `_`; the result is
    /// never empty, never only dots (`.`, `..`) and at most `maximumSafeNameLength` long, keeping a short extension.
    public static func safeName(_ name: String) -> String {
        // A name already safe (the common case) is kept as it is.
        let utf8 = name.utf8
        if utf8.count <= maximumSafeNameLength, utf8.allSatisfy(isKept), utf8.contains(where: { $0 != UInt8(ascii: ".") }) {
            return name
        }
        var safe = ""
        var replacing = false
        for scalar in name.unicodeScalars {
            if scalar.isASCII, isKept(UInt8(scalar.value)) {
                safe.unicodeScalars.append(scalar)
                replacing = false
            } else if !replacing {
                safe += "_"
                replacing = true
            }
        }
        // All ASCII from here on: bytes count characters.
        if safe.utf8.count > maximumSafeNameLength {
            safe = truncated(safe)
        }
        if safe.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) {  // also true for the empty string
            return fallbackName
        }
        return safe
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Cuts the stem so the whole fits, keeping an extension of up to 16 characters (the part from the last dot).
    private static func truncated(_ safe: String) -> String {
        if let dot = safe.lastIndex(of: "."), dot != safe.startIndex {
            let ext = safe[dot...]
            if ext.count <= 16 {
                return String(safe.prefix(maximumSafeNameLength - ext.count)) + ext
            }
        }
        return String(safe.prefix(maximumSafeNameLength))
    }
}
