import Foundation

/// Byte counts for people, in binary units (`12.3 KiB`): the watch board's bars and the dashboard's timeline.
public enum ByteCountText {
    /// `512 B`, `1.5 KiB`, `64.0 MiB`.
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
