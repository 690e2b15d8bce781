import Foundation

/// Parsing of the value forms the configuration accepts: durations, sizes, booleans, lists.
public enum ConfigurationValue {
    /// `250ms`, `30s`, `5m`, `1h` (a whole number and one unit).
    public static func duration(_ text: String) -> Duration? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, (Int64) -> Duration)] = [("ms", { .milliseconds($0) }), ("s", { .seconds($0) }),
                                                      ("m", { .seconds($0 * 60) }), ("h", { .seconds($0 * 3600) })]
        for (suffix, make) in units where text.hasSuffix(suffix) {
            guard let number = Int64(text.dropLast(suffix.count)), number >= 0, number <= 1_000_000_000 else { return nil }
            return make(number)
        }
        return nil
    }

    /// Bytes, or a whole number with `KiB`, `MiB` or `GiB` (`100MiB`, `1 GiB`, `512`).
    public static func size(_ text: String) -> Int64? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Int64)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("B", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Int64(number), value >= 0, value <= Int64.max / factor else { return nil }
            return value * factor
        }
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }

    public static func bool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    /// A comma-separated list (the environment's form), blanks dropped.
    public static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
