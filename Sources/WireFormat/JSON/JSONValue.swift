/// Any JSON value, for the free-form parts of the wire formats (message metadata, configuration files).
///
/// Integers are kept apart from other numbers so that ids and counts round-trip exactly. `JSONParser` is the one
/// reader of JSON in the project and `JSONWriter` the one writer.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (member order is not kept).
    case object([String: JSONValue])

    /// The member `key` of an object; nil for anything else.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The value as configuration text: strings as they are, numbers and booleans spelled out (a whole number written
    /// with a fraction or exponent, `3.0` or `1e3`, as the integer it is); nil otherwise.
    public var scalarText: String? {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): Int64(exactly: value).map(String.init) ?? String(value)
        default: nil
        }
    }

    /// The text of a string, or the decimal form of an integer (APIs send ids either way).
    public var idString: String? {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        default: nil
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
