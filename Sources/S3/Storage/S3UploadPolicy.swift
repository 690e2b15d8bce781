import UploadEngine

/// What the S3 presigner agrees to sign: allowed content types and a size limit. A file outside the policy is
/// refused (rejected, never retried).
public struct S3UploadPolicy: Sendable, Hashable {
    /// Allowed mime types: exact (`application/pdf`), a whole top-level type (`image/*`) or anything (`*/*`).
    /// Empty allows every type. Matching ignores case and parameters (`; charset=…`).
    public var allowedMimeTypes: [String]
    /// The largest file in bytes; nil for no limit of the policy's own.
    public var maximumSize: Int64?

    /// A policy; the default allows everything.
    public init(allowedMimeTypes: [String] = [], maximumSize: Int64? = nil) {
        self.allowedMimeTypes = allowedMimeTypes
        self.maximumSize = maximumSize
    }

    /// Why `file` is refused, or nil when the policy allows it.
    ///
    /// A disallowed type is `ERR_PRESIGNED_URL_FAILED` (the upload authorisation's policy refusal); a file over the
    /// size limit is `ERR_FILE_SIZE_EXCEEDED`. Neither is retryable.
    public func refusal(for file: PresignFile) -> UploadError? {
        if let maximumSize, file.size > maximumSize {
            return UploadError(
                .fileSizeExceeded,
                "the file is \(file.size) bytes; the storage policy allows at most \(maximumSize) bytes",
                retryable: false)
        }
        if !allows(mimeType: file.mimeType) {
            let shown = file.mimeType.isEmpty ? "(none)" : file.mimeType
            return UploadError(
                .presignedURLFailed,
                "content type \(shown) is not allowed by the storage policy (allowed: \(allowedMimeTypes.joined(separator: ", ")))",
                retryable: false)
        }
        return nil
    }

    /// Whether `mimeType` matches one of the allowed patterns.
    public func allows(mimeType: String) -> Bool {
        if allowedMimeTypes.isEmpty { return true }
        let essence = Self.essence(mimeType)
        let parts = essence.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return allowedMimeTypes.contains { pattern in
            let wanted = Self.essence(pattern)
            if wanted == "*/*" || wanted == "*" { return true }
            if wanted.hasSuffix("/*") { return parts[0] == wanted.dropLast(2) }
            return wanted == essence
        }
    }

    /// Whether `pattern` is a usable allowed-type entry: `*`, `*/*`, `type/*` or `type/subtype`.
    public static func isValidPattern(_ pattern: String) -> Bool {
        let essence = essence(pattern)
        if essence == "*" || essence == "*/*" { return true }
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0] != "*" else { return false }
        return !parts[0].contains("*") && (parts[1] == "*" || !parts[1].contains("*"))
    }

    /// The lower-cased `type/subtype` without parameters or surrounding spaces.
    private static func essence(_ mimeType: String) -> String {
        let bare = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return bare.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
