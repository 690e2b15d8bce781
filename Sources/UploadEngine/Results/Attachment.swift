/// An uploaded file, ready to put on a media message.
public struct Attachment: Sendable, Hashable {
    public var fileId: String
    public var name: String
    /// The hosted URL (the presign answer's `fileUrl`), never the upload URL.
    public var url: String
    public var mimeType: String
    /// The name's extension, lower case, without the dot; empty when the name has none.
    public var `extension`: String
    public var size: Int64
    public var type: MediaKind
    /// Hex SHA-256 of the stored bytes.
    public var sha256: String
    /// How storage encrypts the object at rest (`AES256`, `aws:kms`), when the upload asked it to; nil: not asked.
    public var encryption: String?

    public init(fileId: String, name: String, url: String, mimeType: String, size: Int64, sha256: String,
                encryption: String? = nil) {
        self.fileId = fileId
        self.name = name
        self.url = url
        self.mimeType = mimeType
        self.extension = Attachment.fileExtension(of: name)
        self.size = size
        self.type = MediaKind(mimeType: mimeType)
        self.sha256 = sha256
        self.encryption = encryption
    }

    /// The lower-cased extension of a name: `"Photo.JPG"` → `"jpg"`, `"README"` → `""`, `".env"` → `""`.
    public static func fileExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        let ext = name[name.index(after: dot)...]
        // A byte search: `contains("/")` on a string is Foundation's substring search, a tenth of settling a file.
        return ext.utf8.contains(UInt8(ascii: "/")) ? "" : ext.lowercased()
    }
}
