import S3

/// How the presign service lays out object keys: `{batchId}/{fileId}/{safe name}`.
///
/// Ids are kept as they are when they only use `A–Z a–z 0–9 . _ -` and do not start with a dot; otherwise unsafe
/// characters become `_` and the first 8 hex digits of the id's SHA-256 are appended, so distinct ids never share
/// a key. Names only need to be safe (one file per id directory): unsafe characters and leading dots become `_`,
/// an empty name becomes `file`, and names are cut to 200 bytes keeping a short extension.
public enum ObjectKeyLayout {
    /// The object key for a file of a batch.
    public static func key(batchId: String, fileId: String, name: String) -> String {
        "\(segment(batchId))/\(segment(fileId))/\(safeName(name))"
    }

    /// An id as a key segment: unchanged when safe, else sanitised and suffixed with a short hash of the id.
    static func segment(_ id: String) -> String {
        let safe = sanitised(id)
        return safe == id ? id : "\(safe.isEmpty ? "_" : safe)-\(SHA256Hasher.hex(of: Array(id.utf8)).prefix(8))"
    }

    /// A display name as a key segment.
    static func safeName(_ name: String) -> String {
        var safe = sanitised(name)
        if safe.isEmpty { return "file" }
        if safe.utf8.count > 200 {
            let dot = safe.lastIndex(of: ".")
            let suffix = dot.map { String(safe[$0...]) }.flatMap { $0.count <= 16 ? $0 : nil } ?? ""
            safe = String(safe.prefix(200 - suffix.count)) + suffix
        }
        return safe
    }

    private static func sanitised(_ text: String) -> String {
        var output = ""
        var leading = true
        for scalar in text.unicodeScalars {
            let safe = scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || (scalar == "." && !leading))
            output.unicodeScalars.append(safe ? scalar : "_")
            leading = leading && scalar == "."
        }
        return output
    }
}
