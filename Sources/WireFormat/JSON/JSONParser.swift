/// A strict RFC 8259 JSON parser from bytes to `JSONValue`, without Foundation.
///
/// Strict means: no trailing commas, comments, byte order mark, leading zeros or other leniencies; strings must be
/// UTF-8 with valid escapes (a lone surrogate is an error); nothing but whitespace may follow the value. Integers
/// that fit 64 bits become `.int`, every other number `.double`. A repeated object key keeps its last value.
/// Open containers are tracked on the heap, not the call stack, and nesting is limited, so hostile input can neither
/// overflow a thread's stack while parsing nor build a tree too deep to release. Parsing is synchronous and keeps no
/// state between calls, so it is safe from any thread.
public struct JSONParser {
    /// How deeply arrays and objects may nest by default (the outermost container counts as one).
    public static let defaultMaximumDepth = 512

    /// The text being parsed; valid only during `parse`.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index = 0
    /// The nesting limit.
    let maximumDepth: Int
    /// Collects the bytes of strings with escapes; reused so such strings cost one buffer per parse, not one each.
    var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Parses `bytes` as one JSON text.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        let result = bytes.withMemoryRebound(to: UInt8.self) { octets in
            Result { () throws(JSONParseError) in
                var parser = JSONParser(bytes: octets, maximumDepth: maximumDepth)
                return try parser.parseText()
            }
        }
        return try result.get()
    }

    /// Parses `bytes` (an `[UInt8]`, a `Data`, a slice) as one JSON text; non-contiguous collections are copied first.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        let parsed = bytes.withContiguousStorageIfAvailable { octets in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(octets), maximumDepth: maximumDepth) }
        }
        if let parsed { return try parsed.get() }
        return try parse(Array(bytes), maximumDepth: maximumDepth)
    }

    private mutating func parseText() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseNestedValue()
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(.trailingBytes, at: index) }
        return value
    }

    /// Parses a string, number or literal at `index`.
    mutating func parseScalar() throws(JSONParseError) -> JSONValue {
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try skipLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try skipLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try skipLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw JSONParseError(.unexpectedByte, at: index)
        }
    }

    /// Steps over `byte` if it is next; the end of the text is an error, since a value is still open.
    mutating func consume(_ byte: UInt8) throws(JSONParseError) -> Bool {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps over `byte`, which must be next.
    mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard try consume(byte) else { throw JSONParseError(.unexpectedByte, at: index) }
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        for offset in 0..<count {
            guard index + offset < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index + offset) }
            guard bytes[index + offset] == literal.utf8Start[offset] else { throw JSONParseError(.unexpectedByte, at: index + offset) }
        }
        index += count
    }

    /// Steps over spaces, tabs and line breaks: the only whitespace JSON has.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
