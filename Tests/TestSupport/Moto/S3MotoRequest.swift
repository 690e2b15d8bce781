/// One request as moto's server (werkzeug) logged it once answered:
/// `127.0.0.1 - - [05/Dec/2026 21:46:35] "PUT /bucket/key?partNumber=2&uploadId=… HTTP/1.1" 200 -`.
public struct S3MotoRequest: Sendable, Hashable {
    public var method: String
    /// The path as sent, still percent-encoded.
    public var path: String
    /// The query's items as sent (`uploads` alone has an empty value).
    public var query: [String: String]
    public var status: Int

    /// Whether this is an UploadPart: a `PUT` with a part number and an upload id.
    public var isUploadPart: Bool { method == "PUT" && query["partNumber"] != nil && query["uploadId"] != nil }

    /// The request a log line records; nil for any other line (the banner, a traceback).
    public init?(logLine: Substring) {
        // werkzeug colours the request of an error answer; the colours are ANSI escapes around the quoted part.
        let plain = Self.withoutEscapes(logLine)
        guard let open = plain.firstIndex(of: "\""), let close = plain.lastIndex(of: "\""), open < close else { return nil }
        let words = plain[plain.index(after: open)..<close].split(separator: " ")
        let after = plain[plain.index(after: close)...].split(separator: " ")
        guard words.count == 3, words[2].hasPrefix("HTTP/"), let status = after.first.flatMap({ Int($0) }) else { return nil }
        method = String(words[0])
        let target = words[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(target[0])
        var query: [String: String] = [:]
        for item in target.dropFirst().first?.split(separator: "&") ?? [] {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
        }
        self.query = query
        self.status = status
    }

    /// `line` without its ANSI escape sequences (`ESC [ … letter`).
    private static func withoutEscapes(_ line: Substring) -> String {
        var plain = ""
        var escaping = false
        for character in line {
            if escaping {
                if character.isLetter { escaping = false }
            } else if character == "\u{1B}" {
                escaping = true
            } else {
                plain.append(character)
            }
        }
        return plain
    }
}
