import WireFormat

/// One JSON object of a job record, read field by field; a problem makes the job invalid with the field's path
/// (`receiver.id has the wrong type`). Every field of a record is optional: `null` reads as absent.
typealias RecordFields = JSONFields<InvalidJob>

extension InvalidJob: JSONFieldFailure {}

extension JSONFields where Failure == InvalidJob {
    /// The top-level fields of a record; anything but an object makes the record invalid as a whole.
    static func record(_ root: JSONValue) throws(InvalidJob) -> RecordFields {
        if case .null = root { throw InvalidJob("the record is null") }
        return try Self.root(root, notAnObject: InvalidJob("the record is not a JSON object"))
    }
}
