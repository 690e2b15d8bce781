import Foundation

/// An object the local store holds: what was uploaded, measured while it streamed to disk.
public struct StoredObject: Sendable, Hashable {
    /// The object key.
    public var key: String
    /// Its size in bytes.
    public var size: Int64
    /// The SHA-256 of its bytes, lower-case hex, computed while they were written.
    public var sha256: String
    /// The `Content-Type` the upload carried, if any.
    public var contentType: String?
    /// Where its bytes are on disk.
    public var file: URL
}
