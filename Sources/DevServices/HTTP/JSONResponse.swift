import Foundation

/// JSON answers of the dev services.
enum JSONResponse {
    /// `value` encoded as JSON (sorted keys, slashes unescaped) with `status`.
    static func make(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json", body: Array(body))
    }

    /// `{"error":{"code","message"}}` with `status`.
    static func error(_ status: Int, code: String, message: String) -> HTTPResponse {
        make(status, ["error": ["code": code, "message": message]])
    }
}
