import WireFormat

extension JSONWriter {
    /// Writes `"name": value`, or `"name": null` when there is none.
    mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    /// Writes `"name": value` for a whole number that may be missing.
    mutating func field(_ name: StaticString, _ value: Int64?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    /// Writes `"name": {"code","message"}`, or null.
    mutating func field(_ name: StaticString, _ problem: FileActivity.Problem?) {
        key(name)
        guard let problem else { return null() }
        beginObject()
        field("code", problem.code)
        field("message", problem.message)
        endObject()
    }

    /// Writes `"name": [ … ]`, one element per item, each written by `element`.
    mutating func array<Items: Sequence>(_ name: StaticString, _ items: Items, _ element: (inout JSONWriter, Items.Element) -> Void) {
        key(name)
        beginArray()
        for item in items { element(&self, item) }
        endArray()
    }

    /// Writes one object whose members `members` writes.
    mutating func object(_ members: (inout JSONWriter) -> Void) {
        beginObject()
        members(&self)
        endObject()
    }
}
