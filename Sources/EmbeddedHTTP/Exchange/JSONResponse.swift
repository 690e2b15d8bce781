import Foundation

/// JSON answers: a value encoded with sorted keys, and the `{"error":{"code","message"}}` shape.
public enum JSONResponse {
    /// `value` encoded as JSON (sorted keys, slashes unescaped) with `status`.
    public static func make(_ status: Int, _ value: some Encodable) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return ServerResponse(status: status, contentType: "application/json", body: Array(body))
    }

    /// `{"error":{"code","message"}}` with `status`.
    public static func error(_ status: Int, code: String, message: String) -> ServerResponse {
        make(status, ["error": ["code": code, "message": message]])
    }
}
