import TestSupport
import Foundation
import WireFormat

/// Reads curl's body as JSON, for assertions; nil when it is not JSON.
extension Curl.Result {
    var json: JSONValue? {
        try? JSONParser.parse(body)
    }
}

/// The text of a request body.
func jsonText(_ value: JSONValue) -> String {
    var json = JSONWriter()
    json.value(value)
    return String(decoding: json.bytes, as: UTF8.self)
}
