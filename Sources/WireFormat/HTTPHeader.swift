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
    /// Whether the field is called `name`, ASCII letters compared without case; no copy of either is made.
    public func isNamed(_ name: String) -> Bool {
        self.name.utf8.elementsEqual(name.utf8) { HTTPHeader.lowercased($0) == HTTPHeader.lowercased($1) }
    }

    /// The name with ASCII letters in lower case: the name itself when it has no upper-case letter.
    public var lowercasedName: String {
        name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
