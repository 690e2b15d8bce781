import WireFormat

/// The kind of media a file is, from its mime type's top level; it decides the message type and the send order.
public enum MediaKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case image, video, audio, file

    /// `image/…` → image, `video/…` → video, `audio/…` → audio, anything else → file.
    public init(mimeType: String) {
        // Compared byte by byte, as `lowercased()` and a switch would not be: every file settled makes one. A
        // top-level type is short, so `top` is a small string and allocates nothing; the `/` is found among the
        // bytes, not the characters, which would be told apart by Unicode's rules first.
        let top = String(mimeType[..<(mimeType.utf8.firstIndex(of: UInt8(ascii: "/")) ?? mimeType.endIndex)])
        if top.equalsIgnoringASCIICase("image") {
            self = .image
        } else if top.equalsIgnoringASCIICase("video") {
            self = .video
        } else if top.equalsIgnoringASCIICase("audio") {
            self = .audio
        } else {
            self = .file
        }
    }

    /// Send order: images, then videos, then audios, then files.
    public static func < (lhs: MediaKind, rhs: MediaKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
