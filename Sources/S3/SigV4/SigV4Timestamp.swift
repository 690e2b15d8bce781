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
        guard (0...9_999).contains(year) else {
            // Outside four-digit years: no signature S3 accepts, but the forms stay well defined.
            dateStamp = Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2)
            amzDate = dateStamp + "T" + Self.pad(hour, 2) + Self.pad(minute, 2) + Self.pad(second, 2) + "Z"
            return
        }
        // Written into the one allocation the 16-byte form needs (the 8-byte date is a small string): a presigned
        // URL per file in `s3` mode signs with these, and padding piece by piece made a dozen strings.
        amzDate = String(unsafeUninitializedCapacity: 16) { text in
            var at = 0
            func put(_ value: Int64, width: Int) {
                var rest = value
                for place in stride(from: width - 1, through: 0, by: -1) {
                    text[at + place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += width
            }
            func put(_ byte: UInt8) {
                text[at] = byte
                at += 1
            }
            put(year, width: 4)
            put(month, width: 2)
            put(day, width: 2)
            put(UInt8(ascii: "T"))
            put(hour, width: 2)
            put(minute, width: 2)
            put(second, width: 2)
            put(UInt8(ascii: "Z"))
            return at
        }
        dateStamp = String(Substring(amzDate.utf8.prefix(8)))
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
