/// One HTTP header field, as a client sends or receives it and as the embedded server answers with it.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name, as written (names match case-insensitively).
    public var name: String
    /// The field value.
    public var value: String

    /// A field from its name and value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
