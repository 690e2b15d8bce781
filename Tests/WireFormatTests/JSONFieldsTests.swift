import Testing
import WireFormat

/// `JSONFields` answers an absent field from its members' name lengths before looking it up: a field is found
/// whatever its name's length (lengths 64 apart share a bit), and an absent one is absent either way.
@Suite struct JSONFieldsTests {
    struct Failure: JSONFieldFailure {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    @Test func everyFieldIsFoundWhateverItsNamesLength() throws {
        let names = ["", "a", "ab", String(repeating: "x", count: 63), String(repeating: "y", count: 64),
                     String(repeating: "z", count: 65), String(repeating: "w", count: 128), "é", "naïve"]
        var members: [String: JSONValue] = [:]
        for (index, name) in names.enumerated() { members[name] = .int(Int64(index)) }
        let fields = JSONFields<Failure>(members, path: "")
        for (index, name) in names.enumerated() {
            #expect(try fields.int64(name) == Int64(index), "\(name.utf8.count) bytes")
        }
        // Absent: same lengths as members (1, 64, 2 bytes), lengths 64 apart from members', and lengths no member has.
        for absent in ["b", String(repeating: "q", count: 64), "ü", String(repeating: "v", count: 66), "abc", "ç" + "x"] {
            #expect(try fields.int64(absent) == nil, "\(absent.utf8.count) bytes")
        }
    }

    @Test func nullReadsAsAbsentAndAWrongTypeNamesItsPath() {
        let fields = JSONFields<Failure>(["gone": .null, "n": .string("1")], path: "files[0]")
        #expect((try? fields.string("gone")) == .some(nil))
        #expect(throws: Failure.self) { try fields.int64("n") }
        do {
            _ = try fields.required(fields.string("missing"), "missing")
            Issue.record("a missing required field did not throw")
        } catch {
            #expect(error.reason == "files[0].missing is missing")
        }
    }
}
