import WireFormat

/// One JSON object of a job record, read field by field; a wrong type is reported with the field's path
/// (`receiver.id has the wrong type`).
///
/// `null` reads as absent, like a missing field: every field of a record is optional.
struct RecordFields {
    private let members: [String: JSONValue]
    /// Where the object sits in the record: empty for the record itself, else `receiver`, `message`, ….
    private let path: String

    /// The fields of `members`, an object found at `path`.
    init(_ members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
    }

    /// The top-level fields of a record; anything but an object makes the record invalid as a whole.
    static func record(_ root: JSONValue) throws(InvalidJob) -> RecordFields {
        switch root {
        case .object(let members): RecordFields(members, path: "")
        case .null: throw InvalidJob("the record is null")
        default: throw InvalidJob("the record is not a JSON object")
        }
    }

    /// A string field.
    func string(_ name: String) throws(InvalidJob) -> String? {
        guard let value = self[name] else { return nil }
        guard case .string(let text) = value else { throw wrongType(name) }
        return text
    }

    /// A Boolean field.
    func bool(_ name: String) throws(InvalidJob) -> Bool? {
        guard let value = self[name] else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(name) }
        return flag
    }

    /// A 64-bit integer field; a number with a fraction or exponent counts when its value is a whole number that
    /// fits (`1.0`, `1e3`), as senders that only have floating point write them.
    func int64(_ name: String) throws(InvalidJob) -> Int64? {
        guard let value = self[name] else { return nil }
        guard let number = Self.wholeNumber(value) else { throw wrongType(name) }
        return number
    }

    /// An integer field, read like `int64(_:)`.
    func int(_ name: String) throws(InvalidJob) -> Int? {
        guard let number = try int64(name) else { return nil }
        guard let narrowed = Int(exactly: number) else { throw wrongType(name) }
        return narrowed
    }

    /// An id field given as a string or as a whole number (message ids come either way); numbers become decimal text.
    func idText(_ name: String) throws(InvalidJob) -> String? {
        guard let value = self[name] else { return nil }
        if case .string(let text) = value { return text }
        guard let number = Self.wholeNumber(value) else { throw wrongType(name) }
        return String(number)
    }

    /// A nested object of the record's shape, read with its own path.
    func object(_ name: String) throws(InvalidJob) -> RecordFields? {
        guard let value = self[name] else { return nil }
        guard case .object(let members) = value else { throw wrongType(name) }
        return RecordFields(members, path: fieldPath(name))
    }

    /// A free-form object, kept as JSON.
    func freeObject(_ name: String) throws(InvalidJob) -> [String: JSONValue]? {
        guard let value = self[name] else { return nil }
        guard case .object(let members) = value else { throw wrongType(name) }
        return members
    }

    /// An array field, its elements left to the caller.
    func array(_ name: String) throws(InvalidJob) -> [JSONValue]? {
        guard let value = self[name] else { return nil }
        guard case .array(let elements) = value else { throw wrongType(name) }
        return elements
    }

    /// An array of strings; a bad element is named by its index (`message.tags[1] is null`).
    func strings(_ name: String) throws(InvalidJob) -> [String]? {
        guard let elements = try array(name) else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            switch element {
            case .string(let text): texts.append(text)
            case .null: throw InvalidJob("\(fieldPath(name))[\(position)] is null")
            default: throw InvalidJob("\(fieldPath(name))[\(position)] has the wrong type")
            }
        }
        return texts
    }

    /// The member `name`, with `null` read as absent.
    private subscript(name: String) -> JSONValue? {
        guard let value = members[name] else { return nil }
        if case .null = value { return nil }
        return value
    }

    private static func wholeNumber(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): number
        case .double(let number): Int64(exactly: number)
        default: nil
        }
    }

    private func fieldPath(_ name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }

    private func wrongType(_ name: String) -> InvalidJob {
        InvalidJob("\(fieldPath(name)) has the wrong type")
    }
}
