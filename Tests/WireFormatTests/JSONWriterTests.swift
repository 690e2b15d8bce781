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

    @Test func keysAreEscapedAndTimesWrittenInPlace() {
        var json = JSONWriter()
        json.beginObject()
        json.key("we\"ird")
        json.time(Date(timeIntervalSince1970: 0.25))
        json.field("n", 1)
        json.endObject()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"we\"ird":"1970-01-01T00:00:00.250Z","n":1}"#)
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
