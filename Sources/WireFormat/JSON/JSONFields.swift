/// What a `JSONFields` reader throws: an error made from a reason that names the field
/// (`receiver.id has the wrong type`).
public protocol JSONFieldFailure: Error {
    /// An error for `reason`.
    init(_ reason: String)
}

/// One JSON object of a parsed document (a job record, a request body), read field by field; a wrong type is
/// reported with the field's path (`receiver.id has the wrong type`) as a `Failure` of the reader's choosing.
///
/// `null` reads as absent, like a missing field; `required(_:)` turns an absent field into `name is missing`.
public struct JSONFields<Failure: JSONFieldFailure> {
    private let members: [String: JSONValue]
    /// Bit `n % 64` set for each member name `n` bytes long. A reader asks for every field a record may have, most
    /// of them absent (a job names 5 of its 12 top-level fields); a name of a length no member has is absent without
    /// hashing it, which a dictionary lookup of a short name costs about 340 instructions for.
    private let nameLengths: UInt64
    /// Where the object sits in the document: empty for the document itself, else `receiver`, `message`, ….
    public let path: String

    /// The fields of `members`, an object found at `path`.
    public init(_ members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
        var lengths: UInt64 = 0
        for name in members.keys { lengths |= 1 << UInt64(name.utf8.count & 63) }
        nameLengths = lengths
    }

    /// The fields of a document's root; anything but an object throws `notAnObject`.
    public static func root(_ value: JSONValue, notAnObject: @autoclosure () -> Failure) throws(Failure) -> JSONFields {
        guard case .object(let members) = value else { throw notAnObject() }
        return JSONFields(members, path: "")
    }

    /// A field that must be there: `value` read by one of the methods below, or `name is missing`.
    public func required<Value>(_ value: Value?, _ name: String) throws(Failure) -> Value {
        guard let value else { throw Failure("\(fieldPath(name)) is missing") }
        return value
    }

    /// A string field.
    public func string(_ name: String) throws(Failure) -> String? {
        guard let value = self[name] else { return nil }
        guard case .string(let text) = value else { throw wrongType(name) }
        return text
    }

    /// A Boolean field.
    public func bool(_ name: String) throws(Failure) -> Bool? {
        guard let value = self[name] else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(name) }
        return flag
    }

    /// A 64-bit integer field; a number with a fraction or exponent counts when its value is a whole number that
    /// fits (`1.0`, `1e3`), as senders that only have floating point write them.
    public func int64(_ name: String) throws(Failure) -> Int64? {
        guard let value = self[name] else { return nil }
        guard let number = value.wholeNumber else { throw wrongType(name) }
        return number
    }

    /// An integer field, read like `int64(_:)`.
    public func int(_ name: String) throws(Failure) -> Int? {
        guard let number = try int64(name) else { return nil }
        guard let narrowed = Int(exactly: number) else { throw wrongType(name) }
        return narrowed
    }

    /// An id field given as a string or as a whole number (message ids come either way); numbers become decimal text.
    public func idText(_ name: String) throws(Failure) -> String? {
        guard let value = self[name] else { return nil }
        if case .string(let text) = value { return text }
        guard let number = value.wholeNumber else { throw wrongType(name) }
        return String(number)
    }

    /// A nested object of the record's shape, read with its own path.
    public func object(_ name: String) throws(Failure) -> JSONFields? {
        guard let value = self[name] else { return nil }
        guard case .object(let members) = value else { throw wrongType(name) }
        return JSONFields(members, path: fieldPath(name))
    }

    /// A free-form object, kept as JSON.
    public func freeObject(_ name: String) throws(Failure) -> [String: JSONValue]? {
        guard let value = self[name] else { return nil }
        guard case .object(let members) = value else { throw wrongType(name) }
        return members
    }

    /// An array field, its elements left to the caller.
    public func array(_ name: String) throws(Failure) -> [JSONValue]? {
        guard let value = self[name] else { return nil }
        guard case .array(let elements) = value else { throw wrongType(name) }
        return elements
    }

    /// An array of objects, each read with its own path (`files[2]`); an element that is not an object is named by
    /// its index (`files[2] has the wrong type`).
    public func objects(_ name: String) throws(Failure) -> [JSONFields]? {
        guard let elements = try array(name) else { return nil }
        var objects: [JSONFields] = []
        objects.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            let elementPath = "\(fieldPath(name))[\(position)]"
            guard case .object(let members) = element else { throw Failure("\(elementPath) has the wrong type") }
            objects.append(JSONFields(members, path: elementPath))
        }
        return objects
    }

    /// An array of strings; a bad element is named by its index (`message.tags[1] is null`).
    public func strings(_ name: String) throws(Failure) -> [String]? {
        guard let elements = try array(name) else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            switch element {
            case .string(let text): texts.append(text)
            case .null: throw Failure("\(fieldPath(name))[\(position)] is null")
            default: throw Failure("\(fieldPath(name))[\(position)] has the wrong type")
            }
        }
        return texts
    }

    /// The member `name`, with `null` read as absent.
    private subscript(name: String) -> JSONValue? {
        guard nameLengths & (1 << UInt64(name.utf8.count & 63)) != 0, let value = members[name] else { return nil }
        if case .null = value { return nil }
        return value
    }

    private func fieldPath(_ name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }

    private func wrongType(_ name: String) -> Failure {
        Failure("\(fieldPath(name)) has the wrong type")
    }
}
