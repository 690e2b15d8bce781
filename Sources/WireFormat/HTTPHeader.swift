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

extension HTTPHeader {
    /// The name with ASCII letters in lower case: the name itself when it has no upper-case letter.
    public var lowercasedName: String {
        name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
    }
}
