/// W3C Trace Context carried from a job to what it causes: its events (the CloudEvents distributed-tracing
/// extension) and the HTTP calls made for its files. Only a well-formed `traceparent` makes one; a malformed one is
/// ignored, never an error (DESIGN §2.2), and a `tracestate` is kept only beside a valid `traceparent`.
public struct TraceContext: Sendable, Hashable {
    public let traceparent: String
    public let tracestate: String?

    /// The longest `tracestate` carried: the W3C recommendation's 512 characters.
    static let tracestateLimit = 512

    /// nil unless `traceparent` is valid: `version-traceid-parentid-flags`, lower-case hex, the version not `ff`,
    /// neither id all zeros; version 00 exactly 55 characters, a later version at least that with `-` after the
    /// flags. A `tracestate` that is empty, too long or holds control characters is dropped.
    public init?(traceparent: String, tracestate: String? = nil) {
        guard Self.isValid(traceparent: Array(traceparent.utf8)) else { return nil }
        self.traceparent = traceparent
        self.tracestate = tracestate.flatMap { state in
            let trimmed = state.trimmingSpaces
            guard !trimmed.isEmpty, trimmed.utf8.count <= Self.tracestateLimit,
                  trimmed.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return trimmed
        }
    }

    private static func isValid(traceparent bytes: [UInt8]) -> Bool {
        guard bytes.count >= 55 else { return false }
        func isHex(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
        }
        func isZero(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 == 0x30 } }
        let dash = UInt8(ascii: "-")
        guard isHex(0..<2), bytes[2] == dash, isHex(3..<35), bytes[35] == dash, isHex(36..<52), bytes[52] == dash,
              isHex(53..<55) else { return false }
        let version = (bytes[0], bytes[1])
        if version == (0x66, 0x66) { return false }
        if isZero(3..<35) || isZero(36..<52) { return false }
        if version == (0x30, 0x30) { return bytes.count == 55 }
        return bytes.count == 55 || bytes[55] == dash
    }
}

private extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
