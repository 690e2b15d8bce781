import EmbeddedHTTP
import Foundation

/// S3-style XML error answers of the local object store.
enum StorageErrorResponse {
    /// `<Error><Code>…</Code><Message>…</Message></Error>` with `status`.
    static func make(_ status: Int, code: String, message: String) -> ServerResponse {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(escaped(code))</Code><Message>\(escaped(message))</Message></Error>
            """
        return ServerResponse(status: status, contentType: "application/xml", body: Array(xml.utf8))
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
