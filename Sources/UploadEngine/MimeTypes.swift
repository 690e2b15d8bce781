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
        let essence = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces)
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let token = Set("!#$&-^_.+0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return parts.allSatisfy { !$0.isEmpty && $0.count <= 127 && $0.allSatisfy(token.contains) }
    }
}
