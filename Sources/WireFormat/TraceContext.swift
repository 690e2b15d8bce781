/// W3C Trace Context carried from a job to what it causes: its events (the CloudEvents distributed-tracing
/// extension) and the HTTP calls made for its files. Only a well-formed `traceparent` makes one; a malformed one is
/// ignored, never an error (DESIGN §2.2), and a `tracestate` is kept only beside a valid `traceparent`.
///
/// The header's length limits are the decoder's (the worker's table of record limits); what this type guarantees is
/// the carried form: a `traceparent` of exactly ``carriedLength`` characters.
public struct TraceContext: Sendable, Hashable {
    public let traceparent: String
    public let tracestate: String?

    /// The length of a version-00 `traceparent`, and of the form carried for a later version (its first 55
    /// characters, as W3C Trace Context has a parser of a later version read them).
    public static let carriedLength = 55

    /// nil unless `traceparent` is valid: `version-traceid-parentid-flags`, lower-case hex, the version not `ff`,
    /// neither id all zeros; version 00 exactly 55 characters, a later version at least that with `-` after the
    /// flags — carried as its first 55 characters, its own version digits kept. A `tracestate` that is empty or
    /// holds anything but printable ASCII is dropped (spaces and tabs around it are trimmed).
    public init?(traceparent: String, tracestate: String? = nil) {
        let bytes = Array(traceparent.utf8.prefix(Self.carriedLength + 1))
        guard Self.isValid(traceparent: bytes, length: traceparent.utf8.count) else { return nil }
        self.traceparent = String(decoding: bytes.prefix(Self.carriedLength), as: UTF8.self)
        self.tracestate = tracestate.flatMap { state in
            let trimmed = state.trimmingSpaces
            guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return trimmed
        }
    }

    /// Whether a `traceparent` of `length` bytes, of which `bytes` are the first (up to 56), parses.
    private static func isValid(traceparent bytes: [UInt8], length: Int) -> Bool {
        guard bytes.count >= carriedLength else { return false }
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
        if version == (0x30, 0x30) { return length == carriedLength }
        return length == carriedLength || bytes[carriedLength] == dash
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
