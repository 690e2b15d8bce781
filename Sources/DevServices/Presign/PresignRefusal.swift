/// A per-file refusal: the `error` of a presign answer.
public struct PresignRefusal: Sendable, Hashable {
    /// The refusal code, e.g. `ERR_FILE_TYPE_NOT_ALLOWED`.
    public var code: String
    /// Why, for people.
    public var message: String

    /// Creates a refusal.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
