import Foundation
/// The effective value of every configuration key and where it came from, credentials redacted: what
/// `attache config print` shows.
public struct ConfigurationReport: Sendable {
    /// One key (or one raw librdkafka property) with its value as the file would write it.
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: String
        public var origin: ResolvedConfiguration.Origin
    }

    /// What a redacted value prints as; an empty value stays empty (telling that it is unset is no leak).
    public static let redacted = "(redacted)"

    /// Every key in the documented order, then the raw Kafka properties by name.
    public let entries: [Entry]

    public init(_ resolved: ResolvedConfiguration) {
        var entries = ConfigurationKey.all.map { key in
            let value = key.read(resolved.configuration)
            return Entry(key: key.path, value: key.isSecret ? Self.redact(value) : value,
                         origin: resolved.origins[key.path] ?? .default)
        }
        for (name, value) in resolved.configuration.kafka.properties.sorted(by: { $0.key < $1.key }) {
            let path = "kafka.properties.\(name)"
            entries.append(Entry(key: path, value: Self.isSecretProperty(name) ? Self.redact(value) : value,
                                 origin: resolved.origins[path] ?? .default))
        }
        self.entries = entries
    }

    /// librdkafka properties that carry credentials: passwords, secrets, tokens, private keys and every SASL setting
    /// but the mechanism's name.
    public static func isSecretProperty(_ name: String) -> Bool {
        let name = name.lowercased()
        if name == "sasl.mechanism" || name == "sasl.mechanisms" { return false }
        return name.hasPrefix("sasl.") || ["password", "secret", "token", "key", "jaas", "credential"].contains { name.contains($0) }
    }

    /// The report as aligned columns: key, value, origin.
    public var text: String {
        let keyWidth = entries.map(\.key.count).max() ?? 0
        let valueWidth = min(entries.map(\.value.count).max() ?? 0, 48)
        return entries.map { entry in
            let value = entry.value.isEmpty ? "\"\"" : entry.value
            return entry.key.padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "  "
                + (value.count < valueWidth ? value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : value)
                + "  " + entry.origin.description
        }.joined(separator: "\n")
    }

    private static func redact(_ value: String) -> String { value.isEmpty ? "" : redacted }
}
