/// One message of a `text/event-stream` (the HTML Living Standard's server-sent events), encoded.
///
/// A data payload is split at line breaks into one `data:` line each (the browser joins them with `\n`), so no
/// payload can end a message early or smuggle a field in; event names and ids lose any line break for the same
/// reason. JSON from `JSONWriter` has none, and so goes out as one line.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field (the listener's name in the page); nil for the default, `message`.
    public var event: String?
    /// The `id:` field, which the browser sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The payload.
    public var data: [UInt8]

    public init(event: String? = nil, id: String? = nil, data: [UInt8]) {
        self.event = event
        self.id = id
        self.data = data
    }

    /// The message's bytes, ending in the blank line that dispatches it.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 64)
        if let event { Self.appendField("event", event, to: &bytes) }
        if let id { Self.appendField("id", id, to: &bytes) }
        var line: ArraySlice<UInt8> = data[...]
        repeat {
            let end = line.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? line.endIndex
            bytes.append(contentsOf: Array("data: ".utf8))
            bytes.append(contentsOf: line[..<end])
            bytes.append(0x0A)
            guard end < line.endIndex else { break }
            // CRLF is one break, as the parser reads it.
            let next = line[end] == 0x0D && line.index(after: end) < line.endIndex && line[line.index(after: end)] == 0x0A
                ? line.index(end, offsetBy: 2) : line.index(after: end)
            line = line[next...]
        } while true
        bytes.append(0x0A)
        return bytes
    }

    /// `retry: MS`: how long the browser waits before reconnecting after the stream ends.
    public static func retry(milliseconds: Int) -> [UInt8] {
        Array("retry: \(milliseconds)\n\n".utf8)
    }

    /// A comment line, which the browser ignores: keeps an idle stream moving so a dead connection is noticed.
    public static func comment(_ text: String) -> [UInt8] {
        Array(": \(Self.singleLine(text))\n\n".utf8)
    }

    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Array("\(name): \(singleLine(value))\n".utf8))
    }

    private static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" })
    }
}
