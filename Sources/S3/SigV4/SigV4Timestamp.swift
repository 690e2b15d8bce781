import Foundation
import WireFormat

/// A signing instant in the two UTC forms SigV4 uses: `20130524T000000Z` and `20130524`.
///
/// Computed arithmetically rather than with `DateFormatter`, which is costly to build and not `Sendable`.
public struct SigV4Timestamp: Sendable, Hashable {
    /// Whole seconds since 1970-01-01T00:00:00Z; SigV4 has no sub-second precision.
    public let secondsSince1970: Int64
    /// `yyyyMMdd'T'HHmmss'Z'`, the `X-Amz-Date` value.
    public let amzDate: String
    /// `yyyyMMdd`, the date of the credential scope.
    public let dateStamp: String

    /// The instant `date`, truncated to the second.
    public init(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        secondsSince1970 = seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.from(daysSince1970: days)
        let hour = secondOfDay / 3_600
        let minute = secondOfDay % 3_600 / 60
        let second = secondOfDay % 60
        // Written into one string, of exactly its size (the date alone is a small string, no allocation): a
        // presigned URL per file in `s3` mode signs with these, and padding piece by piece made a dozen strings. A
        // year is zero-padded to four digits and keeps all of them past 9999.
        let yearDigits = String(year)
        let yearPadding = max(0, 4 - yearDigits.utf8.count)
        amzDate = String(unsafeUninitializedCapacity: yearPadding + yearDigits.utf8.count + 12) { text in
            var at = 0
            func put(_ byte: UInt8) {
                text[at] = byte
                at += 1
            }
            func put(twoDigits value: Int64) {
                put(UInt8(ascii: "0") + UInt8(value / 10))
                put(UInt8(ascii: "0") + UInt8(value % 10))
            }
            for _ in 0..<yearPadding { put(UInt8(ascii: "0")) }
            yearDigits.utf8.forEach { put($0) }
            put(twoDigits: month)
            put(twoDigits: day)
            put(UInt8(ascii: "T"))
            put(twoDigits: hour)
            put(twoDigits: minute)
            put(twoDigits: second)
            put(UInt8(ascii: "Z"))
            return at
        }
        dateStamp = String(decoding: amzDate.utf8.prefix { $0 != UInt8(ascii: "T") }, as: UTF8.self)
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }
}
