import Foundation
import Testing
import WireFormat

@Suite struct JSONWriterTests {
    private func written(_ text: String) -> String {
        var json = JSONWriter()
        json.string(text)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test(arguments: [
        ("", #""""#),
        ("plain", #""plain""#),
        ("say \"hi\"", #""say \"hi\"""#),
        (#"C:\path\"#, #""C:\\path\\""#),
        ("line\nreturn\rtab\t", #""line\nreturn\rtab\t""#),
        ("\u{8}\u{C}", #""\u0008\u000c""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F} delete stays", "\"\u{7F} delete stays\""),
        ("é and 🚀", "\"é and 🚀\""),
        ("\"\\\n", #""\"\\\n""#),
        ("a\u{1}b\"c\\d", #""a\u0001b\"c\\d""#),
    ])
    func stringsAreQuotedWithOnlyTheNeededEscapes(text: String, expected: String) {
        #expect(written(text) == expected)
    }

    @Test func escapingMatchesByteByByteEscaping() {
        var samples = (0...0x7F).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["é", "🚀", "naïve \"quotes\" and \\slashes\\", String(repeating: "long run ", count: 40) + "\n" + String(repeating: "é", count: 40)]
        samples += samples.map { "prefix " + $0 + " suffix" }
        for sample in samples {
            #expect(written(sample) == Self.reference(sample), "\(sample.debugDescription)")
        }
    }

    /// The writer checks eight bytes at a time: every byte that needs an escape, and its neighbours in value that do
    /// not, at every place in and across those words.
    @Test func escapesAreFoundAtEveryPlaceInAWord() {
        let bytes: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F]
        for byte in bytes {
            for length in [1, 7, 8, 9, 16, 17, 24] {
                for position in 0..<length {
                    var sample = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    sample[position] = byte
                    let text = String(decoding: sample, as: UTF8.self)
                    #expect(written(text) == Self.reference(text), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
        let accented = String(repeating: "é", count: 9) + "\"" + String(repeating: "é", count: 9)
        #expect(written(accented) == Self.reference(accented))
    }

    @Test func keysAreEscapedAndTimesWrittenInPlace() {
        var json = JSONWriter()
        json.beginObject()
        json.key(named: "we\"ird")
        json.time(Date(timeIntervalSince1970: 0.25))
        json.field("n", 1)
        json.endObject()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"we\"ird":"1970-01-01T00:00:00.250Z","n":1}"#)
    }

    /// The writer reserves room once a piece and grows its buffer itself: output far past its first capacity, with
    /// escapes landing where the buffer grows, is what writing the same pieces one at a time gives.
    @Test func outputGrowsPastItsCapacityWithEveryPieceIntact() {
        var json = JSONWriter(capacity: 1)
        var expected = "["
        json.beginArray()
        for index in 0..<300 {
            let text = String(repeating: "\"", count: index % 7) + String(repeating: "x", count: index) + "\u{1}"
            if index > 0 { expected += "," }
            switch index % 4 {
            case 0:
                json.string(text)
                expected += Self.reference(text)
            case 1:
                json.beginObject()
                json.key(named: text)
                json.int(Int64(index) * -1_000_003)
                json.endObject()
                expected += "{" + Self.reference(text) + ":" + String(Int64(index) * -1_000_003) + "}"
            case 2:
                json.bool(index % 8 == 2)
                expected += index % 8 == 2 ? "true" : "false"
            default:
                json.time(Date(timeIntervalSince1970: Double(index)))
                expected += "\"" + RFC3339Instant.format(Date(timeIntervalSince1970: Double(index))) + "\""
            }
        }
        json.endArray()
        expected += "]"
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
        #expect(json.byteCount == expected.utf8.count)
    }

    @Test func integersAreWrittenAsTheirDecimalForm() {
        let signed: [Int64] = [0, 7, -7, 9, 10, 99, 100, -100, 4_096, 1_000_000_007, .max, .min, .max - 1, .min + 1]
        for value in signed {
            var json = JSONWriter()
            json.int(value)
            #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
        }
        // Beyond Int64, and in other widths.
        let wide: [(inout JSONWriter) -> Void] = [
            { $0.int(UInt64.max) },
            { $0.int(Int32.min) },
            { $0.int(UInt8(255)) },
        ]
        let texts = wide.map { write in
            var json = JSONWriter()
            write(&json)
            return String(decoding: json.bytes, as: UTF8.self)
        }
        #expect(texts == [String(UInt64.max), String(Int32.min), "255"])
        var list = JSONWriter()
        list.beginArray()
        [3, -40, 500].forEach { list.int($0) }
        list.endArray()
        #expect(String(decoding: list.bytes, as: UTF8.self) == "[3,-40,500]")
    }

    @Test func anIndentedValueHasOneMemberPerLineSortedByName() throws {
        let value: JSONValue = ["zeta": [1, "two", nil], "alpha": ["b": true, "a": 1.5], "empty": [:], "none": [], "text": "a/b\n"]
        var json = JSONWriter()
        json.indentedValue(value)
        let text = String(decoding: json.bytes, as: UTF8.self)
        #expect(text == """
            {
              "alpha": {
                "a": 1.5,
                "b": true
              },
              "empty": {},
              "none": [],
              "text": "a/b\\n",
              "zeta": [
                1,
                "two",
                null
              ]
            }
            """)
        #expect(try JSONParser.parse(json.bytes) == value)
    }

    @Test func anIndentedValueJoinsWhatIsWrittenAroundIt() {
        var json = JSONWriter()
        json.beginArray()
        json.int(1)
        json.indentedValue(["a": [2]])
        json.indentedValue("scalar")
        json.endArray()
        #expect(String(decoding: json.bytes, as: UTF8.self) == "[1,{\n  \"a\": [\n    2\n  ]\n},\"scalar\"]")
    }

    /// Escaping one byte at a time, the straightforward way the writer must agree with.
    private static func reference(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): bytes += Array(#"\\"#.utf8)
            case 0x0A: bytes += Array(#"\n"#.utf8)
            case 0x0D: bytes += Array(#"\r"#.utf8)
            case 0x09: bytes += Array(#"\t"#.utf8)
            case 0..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }
}
