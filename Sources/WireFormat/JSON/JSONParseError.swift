/// Why a text is not the JSON `JSONParser` accepts, and where the problem was found.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; the raw value is a stable code for logs and tests.
    public enum Reason: String, Sendable, Hashable {
        /// The text ends inside a value, or is empty.
        case unexpectedEnd = "unexpected-end"
        /// A byte that cannot start or continue anything at this point.
        case unexpectedByte = "unexpected-byte"
        /// A number that breaks the grammar: leading zeros, a bare `-`, `.5`, `1.`, `1e`.
        case invalidNumber = "invalid-number"
        /// A number too large for a `Double`.
        case numberOutOfRange = "number-out-of-range"
        /// A backslash not followed by one of `"\/bfnrt` or by `u` and four hex digits.
        case invalidEscape = "invalid-escape"
        /// A `\u` escape naming half of a surrogate pair without the other half.
        case loneSurrogate = "lone-surrogate"
        /// A raw byte below 0x20 inside a string; those must be escaped.
        case controlCharacter = "control-character"
        /// String bytes that are not UTF-8.
        case invalidUTF8 = "invalid-utf8"
        /// Arrays and objects nested deeper than the parser's limit.
        case tooDeep = "too-deep"
        /// Something other than whitespace after the value.
        case trailingBytes = "trailing-bytes"
    }

    /// What is wrong.
    public var reason: Reason
    /// The byte offset where the problem was found.
    public var offset: Int

    /// Makes an error for `reason` at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The stable code of the reason.
    public var code: String { reason.rawValue }

    /// The code and the offset: `invalid-number at byte 12`.
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
