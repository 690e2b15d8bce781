import TestSupport
import Foundation

/// Reads curl's body as a JSON object, for assertions.
extension Curl.Result {
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}

/// Encodes a JSON object for a request body.
func jsonText(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
}
