/// A file's bytes, ready to upload; owned by the batch until it is released.
public struct StagedFile: Sendable, Hashable {
    /// Where the bytes are read from.
    public var bytes: StagedBytes
    public var size: Int64
    /// Hex SHA-256 of the bytes; empty while unknown. A copy is hashed while its bytes stream in. A source read in
    /// place is hashed before its upload when the presigner signs the digest into it, else while the upload reads
    /// it: its digest then comes from ``SourceStager/finishUpload(of:uploaded:)``.
    public var sha256: String
    /// The mime type the content shows (sniffed), or the declared one when sniffing had nothing to say.
    public var mimeType: String?
    /// The source's version, where staging can tell one without reading the bytes (a `path` source's size and
    /// modification time); nil otherwise. A multipart upload records it (``MultipartUpload/sourceVersion``).
    public var sourceVersion: String?

    public init(bytes: StagedBytes, size: Int64, sha256: String, mimeType: String? = nil,
                sourceVersion: String? = nil) {
        self.bytes = bytes
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
        self.sourceVersion = sourceVersion
    }

    /// A copy in the staging directory at `path`.
    public init(path: String, size: Int64, sha256: String, mimeType: String? = nil) {
        self.init(bytes: .copy(path: path), size: size, sha256: sha256, mimeType: mimeType)
    }

    /// The staging copy's path; nil for a source read in place.
    public var path: String? {
        if case .copy(let path) = bytes { return path }
        return nil
    }
}

/// Where a staged file's bytes are.
public enum StagedBytes: Sendable, Hashable {
    /// A copy in the staging directory, at this absolute path (a generated name, never the user's).
    case copy(path: String)
    /// The source file itself, kept open in place of a copy (a `path` source): read through it, never by name.
    case source(any OpenSourceFile)

    public static func == (lhs: StagedBytes, rhs: StagedBytes) -> Bool {
        switch (lhs, rhs) {
        case (.copy(let left), .copy(let right)): left == right
        case (.source(let left), .source(let right)): left === right
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .copy(let path): hasher.combine(path)
        case .source(let source): hasher.combine(ObjectIdentifier(source))
        }
    }
}
