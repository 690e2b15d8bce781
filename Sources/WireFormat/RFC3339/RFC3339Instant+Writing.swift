import Foundation

/// Writing: timestamps with milliseconds in UTC (`2026-11-29T21:00:00.123Z`), written digit by digit into 24 bytes.
///
/// Milliseconds are truncated towards the past, as the instant is counted in whole milliseconds. Instants outside
/// the years 0000–9999, which RFC 3339 cannot spell, are written as the nearest instant inside them.
extension RFC3339Instant {
    /// The length of every timestamp.
    public static let length = 24

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    private static let earliest: Double = -62_167_219_200_000
    private static let latest: Double = 253_402_300_799_999
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// The timestamp of `date` as text.
    public static func format(_ date: Date) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            write(date, into: buffer)
            return length
        }
    }

    static func write(_ date: Date, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // Comparisons with NaN are false, so NaN lands on the earliest instant instead of trapping in `Int64(_:)`.
        let total = Int64(milliseconds >= earliest ? (milliseconds <= latest ? milliseconds : latest) : earliest)
        let (quotient, remainder) = total.quotientAndRemainder(dividingBy: millisecondsPerDay)
        let days = remainder < 0 ? quotient - 1 : quotient
        let millisecondOfDay = remainder < 0 ? remainder + millisecondsPerDay : remainder
        let (year, month, day) = CivilDate.from(daysSince1970: days)
        let seconds = millisecondOfDay / 1000
        writeDigits(year, count: 4, at: 0, in: buffer)
        buffer[4] = UInt8(ascii: "-")
        writeDigits(month, count: 2, at: 5, in: buffer)
        buffer[7] = UInt8(ascii: "-")
        writeDigits(day, count: 2, at: 8, in: buffer)
        buffer[10] = UInt8(ascii: "T")
        writeDigits(seconds / 3600, count: 2, at: 11, in: buffer)
        buffer[13] = UInt8(ascii: ":")
        writeDigits(seconds / 60 % 60, count: 2, at: 14, in: buffer)
        buffer[16] = UInt8(ascii: ":")
        writeDigits(seconds % 60, count: 2, at: 17, in: buffer)
        buffer[19] = UInt8(ascii: ".")
        writeDigits(millisecondOfDay % 1000, count: 3, at: 20, in: buffer)
        buffer[23] = UInt8(ascii: "Z")
    }

    private static func writeDigits(_ value: Int64, count: Int, at offset: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
        var rest = value
        for position in stride(from: offset + count - 1, through: offset, by: -1) {
            buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }
}
