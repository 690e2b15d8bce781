import Foundation

/// RFC 3339 date-times, read (`2030-01-02T03:04:05Z`, `2030-01-02T05:04:05.5+02:00`) and written
/// (`2026-11-29T21:00:00.123Z`) without a formatter object: presign answers carry one per file, every event and log
/// line one.
public enum RFC3339Instant {
    /// The instant `text` names; nil for anything that is not an RFC 3339 date-time with a zone.
    public static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        guard let year = number(&bytes, digits: 4), take(&bytes, "-"), let month = number(&bytes, digits: 2), take(&bytes, "-"),
              let day = number(&bytes, digits: 2), take(&bytes, "T") || take(&bytes, "t") || take(&bytes, " "),
              let hour = number(&bytes, digits: 2), take(&bytes, ":"), let minute = number(&bytes, digits: 2), take(&bytes, ":"),
              let second = number(&bytes, digits: 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if take(&bytes, ".") {
            var scale = 0.1
            guard let first = bytes.first, isDigit(first) else { return nil }
            while let digit = bytes.first, isDigit(digit) {
                fraction += Double(digit - UInt8(ascii: "0")) * scale
                scale /= 10
                bytes.removeFirst()
            }
        }
        var offset = 0
        if take(&bytes, "Z") || take(&bytes, "z") {
            offset = 0
        } else if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            bytes.removeFirst()
            guard let hours = number(&bytes, digits: 2), take(&bytes, ":"), let minutes = number(&bytes, digits: 2),
                  hours < 24, minutes < 60 else { return nil }
            offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard bytes.isEmpty else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(min(second, 59))
        let seconds = timegm(&parts)
        // timegm normalises 31 February into March: a date that moved did not exist.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func number(_ bytes: inout ArraySlice<UInt8>, digits: Int) -> Int? {
        guard bytes.count >= digits else { return nil }
        var value = 0
        for _ in 0..<digits {
            let byte = bytes.removeFirst()
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func take(_ bytes: inout ArraySlice<UInt8>, _ character: Unicode.Scalar) -> Bool {
        guard bytes.first == UInt8(ascii: character) else { return false }
        bytes.removeFirst()
        return true
    }
}
