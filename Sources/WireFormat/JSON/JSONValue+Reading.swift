/// Typed views of a parsed value, for readers that pick fields out of an object.
extension JSONValue {
    /// The text of a string; nil for anything else.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value of `true` or `false`; nil for anything else.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// A 64-bit integer: an integer, or a number with a fraction or exponent whose value is a whole number that fits
    /// (`1.0`, `1e3`), as senders that only have floating point write them; nil for anything else.
    public var wholeNumber: Int64? {
        switch self {
        case .int(let number): number
        case .double(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// The elements of an array; nil for anything else.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members of an object; nil for anything else.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
