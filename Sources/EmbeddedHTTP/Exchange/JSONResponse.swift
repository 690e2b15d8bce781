import Foundation
import WireFormat

/// JSON answers: a value written with sorted keys, and the `{"error":{"code","message"}}` shape.
public enum JSONResponse {
    /// `value` as JSON (members sorted by name, so the same answer is always the same bytes) with `status`.
    public static func make(_ status: Int, _ value: JSONValue) -> ServerResponse {
        var json = JSONWriter(capacity: 256)
        json.value(value)
        return ServerResponse(status: status, contentType: "application/json", body: json.bytes)
    }

    /// `{"error":{"code","message"}}` with `status`.
    public static func error(_ status: Int, code: String, message: String) -> ServerResponse {
        make(status, ["error": ["code": .string(code), "message": .string(message)]])
    }
}
