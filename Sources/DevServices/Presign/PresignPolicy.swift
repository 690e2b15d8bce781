/// What the presign service refuses, file by file. Refusal codes:
/// `ERR_RECEIVER_NOT_ALLOWED` (receiver deny-list), `ERR_FILE_TYPE_NOT_ALLOWED` (mime allow-list),
/// `ERR_FILE_SIZE_EXCEEDED` (size limit), checked in that order.
public struct PresignPolicy: Sendable, Hashable {
    /// The largest declared size presigned (nil: no limit). A file without a declared size passes.
    public var maxFileSize: Int64?
    /// Mime types presigned: exact (`image/png`) or by top level (`image/*`), case-insensitive; nil allows all.
    public var allowedMimeTypes: [String]?
    /// Receiver ids whose files are all refused.
    public var deniedReceivers: Set<String>

    /// A policy; the defaults refuse nothing.
    public init(maxFileSize: Int64? = nil, allowedMimeTypes: [String]? = nil, deniedReceivers: Set<String> = []) {
        self.maxFileSize = maxFileSize
        self.allowedMimeTypes = allowedMimeTypes
        self.deniedReceivers = deniedReceivers
    }

    /// The refusal for a file, or nil when the policy allows it.
    func refusal(receiverId: String, mimeType: String, size: Int64?) -> PresignRefusal? {
        if deniedReceivers.contains(receiverId) {
            return PresignRefusal(code: "ERR_RECEIVER_NOT_ALLOWED",
                                  message: "uploads to receiver \(receiverId) are not allowed")
        }
        if let allowed = allowedMimeTypes, !allowed.contains(where: { Self.matches($0, mimeType) }) {
            return PresignRefusal(code: "ERR_FILE_TYPE_NOT_ALLOWED", message: "file type \(mimeType) is not allowed")
        }
        if let maxFileSize, let size, size > maxFileSize {
            return PresignRefusal(code: "ERR_FILE_SIZE_EXCEEDED",
                                  message: "file size \(size) exceeds the limit of \(maxFileSize) bytes")
        }
        return nil
    }

    private static func matches(_ pattern: String, _ mimeType: String) -> Bool {
        let pattern = pattern.lowercased()
        let mimeType = mimeType.lowercased()
        if pattern.hasSuffix("/*") { return mimeType.hasPrefix(pattern.dropLast()) }
        return pattern == mimeType
    }
}
