import Foundation

/// The text forms of values the configuration and the command line accept: durations, sizes, booleans, lists.
public enum ConfigurationValue {
    /// `250ms`, `30s`, `5m`, `1h` (a whole number and one unit). Nil for anything else, and for a value whose
    /// conversion to seconds would overflow: a bad value is refused, naming its key, never a trap.
    public static func duration(_ text: String) -> Duration? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let units: [(suffix: String, milliseconds: Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let number = Int64(text.dropLast(unit.suffix.count)), number >= 0 else { return nil }
            let (milliseconds, overflow) = number.multipliedReportingOverflow(by: unit.milliseconds)
            guard !overflow else { return nil }
            return .milliseconds(milliseconds)
        }
        return nil
    }

    /// Bytes, or a whole number with `KiB`, `MiB` or `GiB` (`100MiB`, `1 GiB`, `512`). Nil for anything else, and
    /// for a value whose byte count does not fit 64 bits.
    public static func size(_ text: String) -> Int64? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Int64)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("B", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Int64(number), value >= 0 else { return nil }
            let (bytes, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? nil : bytes
        }
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }

    /// A duration in the largest unit that writes it exactly: `250ms`, `30s`, `5m`, `1h` (what `duration` reads back).
    public static func durationText(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (suffix, factor) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)] where milliseconds != 0 && milliseconds % factor == 0 {
            return "\(milliseconds / factor)\(suffix)"
        }
        return "\(milliseconds)ms"
    }

    /// A size in the largest binary unit that writes it exactly: `100MiB`, `16KiB`, `1000` (what `size` reads back).
    public static func sizeText(_ bytes: Int64) -> String {
        for (suffix, factor) in [("GiB", Int64(1) << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes != 0 && bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return String(bytes)
    }

    public static func bool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    /// A comma-separated list (the environment's form), blanks dropped.
    ///
    /// Split on the comma itself, not on characters: a comma followed by a combining mark is one character, and
    /// would otherwise stay inside an element.
    public static func list(_ text: String) -> [String] {
        text.unicodeScalars.split(separator: ",").map { String(String.UnicodeScalarView($0)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The environment variable of a key: `limits.fileSizeMax` → `ATTACHE_LIMITS_FILE_SIZE_MAX`.
    public static func environmentName(of key: String) -> String {
        var name = "ATTACHE_"
        for part in key.split(separator: ".") {
            if !name.hasSuffix("_") { name += "_" }
            var previousWasLower = false
            for character in part {
                if character.isUppercase && previousWasLower { name += "_" }
                name += character.uppercased()
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return name
    }
}
