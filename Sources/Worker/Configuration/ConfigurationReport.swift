import Foundation
import HTTPTransport

/// The effective value of every configuration key and where it came from, credentials redacted: what
/// `attache config print` shows.
///
/// A credential (``ConfigurationSecrets``) prints as ``redacted``; in every other value — any key, raw Kafka
/// properties included — each URL has its user info, query values and fragment hidden (`RedactedURL`), since a
/// presign endpoint or a broker list can carry a token or a password there.
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
            return Entry(key: key.path, value: Self.shown(value, secret: key.isSecret), origin: resolved.origins[key.path] ?? .default)
        }
        for (name, value) in resolved.configuration.kafka.properties.sorted(by: { $0.key < $1.key }) {
            let path = "kafka.properties.\(name)"
            entries.append(Entry(key: path, value: Self.shown(value, secret: ConfigurationSecrets.isSecret(property: name)),
                                 origin: resolved.origins[path] ?? .default))
        }
        self.entries = entries
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

    private static func shown(_ value: String, secret: Bool) -> String {
        guard !secret else { return value.isEmpty ? "" : redacted }
        return RedactedURL.redactingURLs(in: value)
    }
}
