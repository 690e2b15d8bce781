/// The kind of media a file is, from its mime type's top level; it decides the message type and the send order.
public enum MediaKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case image, video, audio, file

    /// `image/…` → image, `video/…` → video, `audio/…` → audio, anything else → file.
    public init(mimeType: String) {
        // The top-level type compared in place, case-insensitively: every file settled makes one.
        let top = mimeType.utf8.prefix { $0 != UInt8(ascii: "/") }
        func isTop(_ name: StaticString) -> Bool {
            top.count == name.utf8CodeUnitCount
                && zip(top, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)).allSatisfy {
                    $0 | 0x20 == $1
                }
        }
        if isTop("image") {
            self = .image
        } else if isTop("video") {
            self = .video
        } else if isTop("audio") {
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
