/// One query argument; `value` is nil for an argument without `=`.
public struct HTTPQueryItem: Sendable, Hashable {
    /// The argument's name.
    public var name: String
    /// The argument's value, or nil when the argument had no `=`.
    public var value: String?

    /// Creates a query argument.
    public init(_ name: String, _ value: String?) {
        self.name = name
        self.value = value
    }
}
