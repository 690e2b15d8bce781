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
        dateStamp = Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2)
        amzDate = dateStamp + "T" + Self.pad(hour, 2) + Self.pad(minute, 2) + Self.pad(second, 2) + "Z"
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
