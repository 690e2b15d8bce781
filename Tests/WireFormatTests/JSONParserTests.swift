import Testing
import WireFormat

@Suite struct JSONParserTests {
    private func parse(_ text: String, maximumDepth: Int = JSONParser.defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    private func reason(_ bytes: [UInt8]) -> JSONParseError.Reason? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .int(0)),
        ("-0", .int(0)),
        ("42", .int(42)),
        ("-17", .int(-17)),
        ("1.5", .double(1.5)),
        ("-0.0", .double(-0.0)),
        ("1e3", .double(1000)),
        ("1E+2", .double(100)),
        ("-1.5e-3", .double(-0.0015)),
        ("0.1", .double(0.1)),
        ("1e-400", .double(0)),
        (#""""#, .string("")),
        (#""plain text""#, .string("plain text")),
        ("[]", .array([])),
        ("{}", .object([:])),
        (#"[1, "two", [3], {"four": 4}, null, true]"#, [1, "two", [3], ["four": 4], nil, true] as JSONValue),
        (#"{"a": {"b": {"c": []}}, "d": [{}]}"#, ["a": ["b": ["c": []]], "d": [JSONValue.object([:])]] as JSONValue),
    ])
    func everyKindOfValueParses(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test func whitespaceIsAllowedAroundEveryToken() throws {
        let text = " \t\r\n{ \n\"a\" \t: \r[ 1 ,\n2 ] ,\"b\":true\t}\n "
        #expect(try parse(text) == ["a": [1, 2], "b": true])
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0000\u001f\u0041""#, "\u{0}\u{1F}A"),
        (#""\u00e9\u00E9\u20AC\uFFFF""#, "éé€\u{FFFF}"),
        (#""\ud83d\ude80""#, "🚀"),
        (#""\uD834\uDD1E clef""#, "𝄞 clef"),
        (#""before \n after""#, "before \n after"),
        (#""raw é and 🚀 then \t""#, "raw é and 🚀 then \t"),
        (#""\u00e9é""#, "éé"),
        ("\"\u{7F}\"", "\u{7F}"),
    ])
    func stringEscapesAndSurrogatePairsDecode(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    @Test func escapedKeysAreDecodedLikeValues() throws {
        #expect(try parse(#"{"k\u0069nd": "x", "\ud83d\ude80": 1}"#) == ["kind": "x", "🚀": 1])
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("-9223372036854775809", .double(-0x1p63)),
        ("18446744073709551615", .double(0x1p64)),
        ("100000000000000000000000", .double(1e23)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
    ])
    func integersBeyondSixtyFourBitsBecomeDoubles(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        ("", JSONParseError.Reason.unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("[", .unexpectedEnd),
        ("[1", .unexpectedEnd),
        ("[1,", .unexpectedEnd),
        (#"{"a""#, .unexpectedEnd),
        (#"{"a":"#, .unexpectedEnd),
        (#"{"a":1"#, .unexpectedEnd),
        (#""abc"#, .unexpectedEnd),
        (#""\u12"#, .unexpectedEnd),
        ("tru", .unexpectedEnd),
        ("[1,]", .unexpectedByte),
        (#"{"a":1,}"#, .unexpectedByte),
        ("[,1]", .unexpectedByte),
        ("[1 2]", .unexpectedByte),
        (#"{"a" 1}"#, .unexpectedByte),
        (#"{"a":1 "b":2}"#, .unexpectedByte),
        (#"{a:1}"#, .unexpectedByte),
        (#"{1:1}"#, .unexpectedByte),
        ("{'a':1}", .unexpectedByte),
        ("'a'", .unexpectedByte),
        ("True", .unexpectedByte),
        ("nul", .unexpectedEnd),
        ("nulL", .unexpectedByte),
        ("NaN", .unexpectedByte),
        ("Infinity", .unexpectedByte),
        ("-Infinity", .invalidNumber),
        ("+1", .unexpectedByte),
        (".5", .unexpectedByte),
        ("/* c */ 1", .unexpectedByte),
        ("01", .invalidNumber),
        ("-01", .invalidNumber),
        ("00", .invalidNumber),
        ("-", .invalidNumber),
        ("1.", .invalidNumber),
        ("1.e3", .invalidNumber),
        ("1e", .invalidNumber),
        ("1e+", .invalidNumber),
        ("-.5", .invalidNumber),
        ("1e400", .numberOutOfRange),
        ("-1e400", .numberOutOfRange),
        ("0x10", .trailingBytes),
        ("1 2", .trailingBytes),
        ("{} x", .trailingBytes),
        ("[]]", .trailingBytes),
        (#""a" "b""#, .trailingBytes),
        ("\u{C}1", .unexpectedByte),
        ("\u{A0}1", .unexpectedByte),
        (#""\x""#, .invalidEscape),
        (#""\U00e9""#, .invalidEscape),
        (#""\'""#, .invalidEscape),
        (#""\u00g0""#, .invalidEscape),
        (#""\ud83d""#, .loneSurrogate),
        (#""\ude80""#, .loneSurrogate),
        (#""\ud83dx""#, .loneSurrogate),
        (#""\ud83d\u0041""#, .loneSurrogate),
        (#""\ud83d\ud83d""#, .loneSurrogate),
        (#""\ud83d\n""#, .loneSurrogate),
        ("\"a\tb\"", .controlCharacter),
        ("\"a\nb\"", .controlCharacter),
        ("\"\\n\u{1}\"", .controlCharacter),
    ])
    func malformedTextsAreRefused(text: String, reason: JSONParseError.Reason) {
        #expect(self.reason(Array(text.utf8)) == reason)
    }

    @Test(arguments: [
        [0xC3, 0x28],               // a lead byte without its continuation
        [0x80],                     // a continuation byte alone
        [0xC0, 0xAF],               // an overlong "/"
        [0xE0, 0x80, 0xAF],         // an overlong three-byte form
        [0xED, 0xA0, 0x80],         // a UTF-16 surrogate written as UTF-8
        [0xF4, 0x90, 0x80, 0x80],   // beyond U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],   // a lead byte that never occurs
        [0xFF],
        [0xE2, 0x82],               // a truncated euro sign
    ] as [[UInt8]])
    func stringsThatAreNotUTF8AreRefused(bytes: [UInt8]) {
        let quote = UInt8(ascii: "\"")
        #expect(reason([quote] + bytes + [quote]) == .invalidUTF8)
        #expect(reason([quote, UInt8(ascii: "\\"), UInt8(ascii: "n")] + bytes + [quote]) == .invalidUTF8, "with an escape too")
        #expect(reason(Array(#"{"k": ""#.utf8) + bytes + Array(#"", "ok": 1}"#.utf8)) == .invalidUTF8, "inside an object")
    }

    @Test func bytesOutsideStringsMustBeASCIIJSON() {
        #expect(reason([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .unexpectedByte, "no byte order mark")
        #expect(reason(Array("{}".utf8) + [0]) == .trailingBytes)
        #expect(reason([0xC3, 0xA9]) == .unexpectedByte)
    }

    @Test func nestingStopsAtTheLimit() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        }
        var expected = JSONValue.array([])
        for _ in 1..<JSONParser.defaultMaximumDepth { expected = .array([expected]) }
        #expect(try JSONParser.parse(nested(512)) == expected)
        #expect(reason(nested(513)) == .tooDeep)
        #expect(reason(nested(100_000)) == .tooDeep, "hostile depth fails cleanly instead of overflowing the stack")

        let objects = Array(repeating: Array(#"{"a":"#.utf8), count: 3).joined() + Array("1}}}".utf8)
        #expect(try JSONParser.parse(objects, maximumDepth: 3) == ["a": ["a": ["a": 1]]])
        #expect(throws: JSONParseError(.tooDeep, at: 10)) { try JSONParser.parse(objects, maximumDepth: 2) }
    }

    @Test func aRepeatedKeyKeepsItsLastValue() throws {
        #expect(try parse(#"{"a": 1, "b": 2, "a": "last"}"#) == ["a": "last", "b": 2])
        #expect(try parse(#"{"a": {"x": 1}, "a": [true]}"#) == ["a": [true]])
    }

    @Test func errorsSayWhereTheProblemIs() {
        #expect(throws: JSONParseError(.unexpectedByte, at: 9)) { try parse(#"{"a": 1, }"#) }
        #expect(throws: JSONParseError(.invalidNumber, at: 6)) { try parse(#"{"a": 01}"#) }
        #expect(throws: JSONParseError(.trailingBytes, at: 3)) { try parse("[] x") }
        #expect(JSONParseError(.tooDeep, at: 4).description == "too-deep at byte 4")
    }

    @Test func anyByteCollectionCanBeParsed() throws {
        let bytes = Array(#"{"n": [1, 2.5]}"#.utf8)
        let expected: JSONValue = ["n": [1, 2.5]]
        #expect(try JSONParser.parse(bytes) == expected)
        #expect(try JSONParser.parse(bytes[...]) == expected)
        #expect(try JSONParser.parse(bytes.lazy.map { $0 }) == expected, "not contiguous: copied first")
        #expect(try bytes.withUnsafeBytes { buffer in try JSONParser.parse(buffer) } == expected)
    }

    @Test func everyScalarRoundTripsThroughAnEscape() throws {
        for value in stride(from: 0, through: 0x10FFFF, by: 97) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let units = String(scalar).utf16.map { "\\u" + String($0, radix: 16).leftPadded(to: 4) }.joined()
            #expect(try parse("\"\(units)\"") == .string(String(scalar)), "U+\(String(value, radix: 16))")
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
