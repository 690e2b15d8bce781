import Foundation

/// Reads a `Retry-After` header: delay-seconds (`120`) or an HTTP-date (`Sun, 06 Nov 1994 08:49:37 GMT`).
public enum RetryAfter {
    /// The wait the header asks for, measured from `now` for a date (never negative); nil when unreadable.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            return Int64(text).map { .seconds($0) }
        }
        guard let date = httpDate(text) else { return nil }
        return .milliseconds(max(0, Int64((date.timeIntervalSince(now) * 1000).rounded())))
    }

    /// The wait a response asks for, if it sent a readable `Retry-After`.
    public static func parse(_ response: HTTPResponse, now: Date) -> Duration? {
        response.header("Retry-After").flatMap { parse($0, now: now) }
    }

    /// IMF-fixdate, and the obsolete RFC 850 and asctime forms that RFC 9110 still asks recipients to accept.
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
