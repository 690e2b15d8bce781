import WireFormat

/// Why a request body is not what a dev service takes: not JSON, or a field missing or of the wrong type
/// (`data.attachments[0].url is missing`).
struct MalformedBody: JSONFieldFailure, CustomStringConvertible {
    /// What is wrong, naming the field.
    var reason: String

    init(_ reason: String) { self.reason = reason }

    var description: String { reason }

    /// The fields of a JSON object body.
    static func fields(of body: some Collection<UInt8>) throws(MalformedBody) -> JSONFields<MalformedBody> {
        let root: JSONValue
        do { root = try JSONParser.parse(body) } catch { throw MalformedBody("the body is not JSON (\(error))") }
        return try JSONFields.root(root, notAnObject: MalformedBody("the body is not a JSON object"))
    }
}
