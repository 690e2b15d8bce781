import Foundation

/// The `Code` and `Message` of an object store's XML error answer
/// (`<Error><Code>AccessDenied</Code><Message>Request has expired</Message>…</Error>`, as S3, MinIO and GCS send).
///
/// Only these two short fields are read, by plain text search: error documents are small and flat, and nothing
/// else in them (string-to-sign, canonical request) belongs in a message.
struct StorageErrorDocument: Sendable, Hashable {
    /// The store's error code, e.g. `AccessDenied`; may be empty.
    var code: String
    /// The store's message; may be empty.
    var message: String

    /// Nil unless the body is an `<Error>` document with a code or a message.
    init?(_ body: Data) {
        guard let text = String(data: body.prefix(TransferSpec.diagnosticBodyLimit), encoding: .utf8),
            text.contains("<Error")
        else { return nil }
        let code = Self.element("Code", in: text) ?? ""
        let message = Self.element("Message", in: text) ?? ""
        guard !code.isEmpty || !message.isEmpty else { return nil }
        self.code = code
        self.message = message
    }

    /// A document from its fields.
    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// Whether the store said the presigned URL's validity ran out.
    var saysURLExpired: Bool {
        (code == "AccessDenied" && message.range(of: "request has expired", options: .caseInsensitive) != nil)
            || code == "ExpiredToken"
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return unescape(text[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func unescape(_ text: Substring) -> String {
        var result = String(text)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}
