/// The kind of media a file is, from its mime type's top level; it decides the message type and the send order.
public enum MediaKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case image, video, audio, file

    /// `image/…` → image, `video/…` → video, `audio/…` → audio, anything else → file.
    public init(mimeType: String) {
        let top = mimeType.split(separator: "/", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        switch top {
        case "image": self = .image
        case "video": self = .video
        case "audio": self = .audio
        default: self = .file
        }
    }

    /// Send order: images, then videos, then audios, then files.
    public static func < (lhs: MediaKind, rhs: MediaKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
