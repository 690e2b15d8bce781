import Foundation

/// RFC 3339 timestamps with milliseconds in UTC (`2026-11-29T21:00:00.123Z`), formatted without a formatter object.
enum EventTime {
    static func format(_ date: Date) -> String {
        let millisecondsTotal = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millisecondsTotal / 1000)
        let milliseconds = Int(millisecondsTotal % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds), 3))Z"
    }
}
