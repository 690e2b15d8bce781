import Foundation

/// Mime types for common extensions: the last resort when neither the bytes nor the job say what a file is.
public enum MimeTypes {
    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "bmp": "image/bmp", "svg": "image/svg+xml", "tif": "image/tiff",
        "tiff": "image/tiff", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac",
        "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "pdf": "application/pdf", "zip": "application/zip", "txt": "text/plain", "csv": "text/csv", "json": "application/json",
        "html": "text/html", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ]

    /// The mime type for a lower-case extension, `application/octet-stream` when unknown.
    public static func forExtension(_ ext: String) -> String {
        byExtension[ext] ?? "application/octet-stream"
    }

    /// Whether a string has the shape `type/subtype` with token characters (parameters after `;` allowed).
    public static func isWellFormed(_ mimeType: String) -> Bool {
        // Every job's every file passes here: ASCII, by far the usual case, is judged on its bytes.
        if let verdict = asciiVerdict(mimeType.utf8) { return verdict }
        let essence = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces)
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.count <= 127 && $0.unicodeScalars.allSatisfy(isTokenScalar) }
    }

    private static let tokenBytes: [Bool] = (0..<128).map { byte in
        "!#$&-^_.+0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8.contains(UInt8(byte))
    }

    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && tokenBytes[Int(scalar.value)]
    }

    /// The verdict when the essence (before any `;`) is ASCII; nil sends other input to the general path, which
    /// also trims Unicode spaces.
    private static func asciiVerdict(_ bytes: String.UTF8View) -> Bool? {
        var essence = bytes.prefix { $0 != UInt8(ascii: ";") }[...]
        guard essence.allSatisfy({ $0 < 0x80 }) else { return nil }
        while let first = essence.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { essence.removeFirst() }
        while let last = essence.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { essence.removeLast() }
        guard let slash = essence.firstIndex(of: UInt8(ascii: "/")) else { return false }
        func isToken(_ part: Substring.UTF8View) -> Bool {
            !part.isEmpty && part.count <= 127 && part.allSatisfy { tokenBytes[Int($0)] }
        }
        return isToken(essence[..<slash]) && isToken(essence[essence.index(after: slash)...])
    }
}
