import Foundation
import Testing
import WireFormat

@Suite struct RFC3339InstantWritingTests {
    @Test(arguments: [
        (0, "1970-01-01T00:00:00.000Z"),
        (0.5, "1970-01-01T00:00:00.500Z"),
        (0.0005, "1970-01-01T00:00:00.000Z"),
        (0.0015, "1970-01-01T00:00:00.001Z"),
        (59.999_75, "1970-01-01T00:00:59.999Z"),
        (-0.0005, "1969-12-31T23:59:59.999Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
        (-1, "1969-12-31T23:59:59.000Z"),
        (1_796_072_400.123, "2026-11-30T21:00:00.123Z"),
        (1_709_210_096.789_5, "2024-02-29T12:34:56.789Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (4_107_542_399, "2100-02-28T23:59:59.000Z"),
        (4_107_542_400, "2100-03-01T00:00:00.000Z"),
        (-2_203_891_200, "1900-03-01T00:00:00.000Z"),
        (-11_670_998_400, "1600-02-29T00:00:00.000Z"),
        (-30_610_224_000, "1000-01-01T00:00:00.000Z"),
        (-62_135_596_800, "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200, "0000-01-01T00:00:00.000Z"),
        (253_402_300_799, "9999-12-31T23:59:59.000Z"),
        (253_402_300_799.5, "9999-12-31T23:59:59.500Z"),
    ] as [(TimeInterval, String)])
    func instantsAreWrittenInUTCWithMillisecondsRoundedDown(seconds: TimeInterval, expected: String) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(RFC3339Instant.format(date) == expected)
        var json = JSONWriter()
        json.beginArray()
        json.int(1)
        json.time(date)
        json.endArray()
        #expect(json.string() == "[1,\"\(expected)\"]", "written into JSON straight: the same bytes, quoted, after what is there")
    }

    @Test(arguments: [
        (253_402_300_800, "9999-12-31T23:59:59.999Z"),
        (1e15, "9999-12-31T23:59:59.999Z"),
        (.infinity, "9999-12-31T23:59:59.999Z"),
        (-62_167_219_200.001, "0000-01-01T00:00:00.000Z"),
        (-1e15, "0000-01-01T00:00:00.000Z"),
        (-.infinity, "0000-01-01T00:00:00.000Z"),
        (.nan, "0000-01-01T00:00:00.000Z"),
    ] as [(TimeInterval, String)])
    func instantsOutsideTheYearsRFC3339CanSpellAreHeldToTheNearestEnd(seconds: TimeInterval, expected: String) {
        #expect(RFC3339Instant.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func everyInstantMatchesTheCLibrarysCalendar() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let earliest: Int64 = -62_167_219_200_000, span: UInt64 = 253_402_300_799_999 + 62_167_219_200_000 + 1
        for _ in 0..<20_000 {
            // xorshift64*: a fixed sequence, so a failure reproduces.
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            let milliseconds = earliest + Int64((state &* 0x2545_F491_4F6C_DD1D) % span)
            // Half a millisecond in, so the conversion to seconds cannot round across a millisecond.
            let date = Date(timeIntervalSince1970: (Double(milliseconds) + 0.5) / 1000)
            #expect(RFC3339Instant.format(date) == Self.reference(milliseconds), "\(milliseconds) ms")
        }
    }

    /// The timestamp as `gmtime_r` and `printf` spell it.
    private static func reference(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int32(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, fraction)
    }
}
