import Foundation
import WireFormat

/// Builds an `AttacheConfiguration` from a JSON file and the environment (the environment wins), refusing unknown
/// keys and bad values with an error that names the key.
public enum ConfigurationLoader {
    /// Environment variables carrying raw librdkafka properties: `ATTACHE_KAFKA_PROPERTY_SASL_MECHANISMS` →
    /// `sasl.mechanisms`.
    static let kafkaPropertyPrefix = "ATTACHE_KAFKA_PROPERTY_"

    public static func load(file path: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AttacheConfiguration {
        try resolve(file: path, environment: environment).validated()
    }

    public static func load(json: Data?, environment: [String: String]) throws -> AttacheConfiguration {
        try resolve(json: json, environment: environment).validated()
    }

    /// Reads the file and the environment into a configuration, and where each key's value came from, without the
    /// checks `validate()` makes across keys: unknown keys and unparsable values are refused here already.
    public static func resolve(file path: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ResolvedConfiguration {
        let json: Data?
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: path, "cannot read the configuration file")
            }
            json = data
        } else {
            json = nil
        }
        return try resolve(json: json, environment: environment)
    }

    public static func resolve(json: Data?, environment: [String: String]) throws -> ResolvedConfiguration {
        var resolved = ResolvedConfiguration()
        let keys = Dictionary(uniqueKeysWithValues: ConfigurationKey.all.map { ($0.path, $0) })
        if let json {
            let root: JSONValue
            // Editors on some systems start UTF-8 files with a byte order mark, which JSON itself does not allow.
            let text = json.starts(with: [0xEF, 0xBB, 0xBF]) ? json.dropFirst(3) : json[...]
            do { root = try JSONParser.parse(text) } catch {
                throw ConfigurationError(key: "(file)", "not valid JSON")
            }
            guard case .object(let object) = root else { throw ConfigurationError(key: "(file)", "the top level must be an object") }
            for (path, value) in flatten(object, prefix: "") {
                if path == "kafka.properties" {
                    let properties = try properties(value)
                    resolved.configuration.kafka.properties.merge(properties, uniquingKeysWith: { $1 })
                    for name in properties.keys { resolved.origins["kafka.properties.\(name)"] = .file }
                    continue
                }
                guard let key = keys[path] else { throw ConfigurationError(key: path, "unknown key") }
                try key.apply(&resolved.configuration, try setting(value, key: path))
                resolved.origins[path] = .file
            }
        }
        let byVariable = Dictionary(uniqueKeysWithValues: ConfigurationKey.all.map { (ConfigurationValue.environmentName(of: $0.path), $0) })
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("ATTACHE_") {
            if name.hasPrefix(kafkaPropertyPrefix) {
                let property = name.dropFirst(kafkaPropertyPrefix.count).lowercased().replacingOccurrences(of: "_", with: ".")
                guard !property.isEmpty else { throw ConfigurationError(key: name, "names no property") }
                resolved.configuration.kafka.properties[property] = value
                resolved.origins["kafka.properties.\(property)"] = .environment(name)
                continue
            }
            guard let key = byVariable[name] else { throw ConfigurationError(key: name, "unknown setting") }
            do {
                try key.apply(&resolved.configuration, .text(value))
            } catch let error as ConfigurationError {
                throw ConfigurationError(key: name, error.problem)
            }
            resolved.origins[key.path] = .environment(name)
        }
        if resolved.configuration.presign.s3.accessKeyId.isEmpty, let id = environment["AWS_ACCESS_KEY_ID"] {
            resolved.configuration.presign.s3.accessKeyId = id
            resolved.origins["presign.s3.accessKeyId"] = .environment("AWS_ACCESS_KEY_ID")
        }
        if resolved.configuration.presign.s3.secretAccessKey.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"] {
            resolved.configuration.presign.s3.secretAccessKey = secret
            resolved.origins["presign.s3.secretAccessKey"] = .environment("AWS_SECRET_ACCESS_KEY")
        }
        return resolved
    }

    /// Nested objects become dotted paths; `kafka.properties` and `limits.tenantWeights` stay objects.
    private static func flatten(_ object: [String: JSONValue], prefix: String) -> [(String, JSONValue)] {
        var pairs: [(String, JSONValue)] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = prefix.isEmpty ? name : "\(prefix).\(name)"
            if case .object(let nested) = value, !ConfigurationKey.objectPaths.contains(path) {
                pairs += flatten(nested, prefix: path)
            } else {
                pairs.append((path, value))
            }
        }
        return pairs
    }

    private static func properties(_ value: JSONValue) throws -> [String: String] {
        guard case .object(let object) = value else { throw ConfigurationError(key: "kafka.properties", "must be an object of strings") }
        return try object.mapValues { value in
            guard let text = value.scalarText else {
                throw ConfigurationError(key: "kafka.properties", "values must be strings, numbers or booleans")
            }
            return text
        }
    }

    private static func setting(_ value: JSONValue, key: String) throws -> ConfigurationKey.Setting {
        if let text = value.scalarText { return .text(text) }
        if case .object(let object) = value {
            return .object(try object.mapValues { element in
                guard let text = element.scalarText else { throw ConfigurationError(key: key, "values must be strings, numbers or booleans") }
                return text
            })
        }
        if case .array(let elements) = value {
            return .list(try elements.map { element in
                guard let text = element.scalarText else { throw ConfigurationError(key: key, "lists hold strings") }
                return text
            })
        }
        throw ConfigurationError(key: key, "expected a string, number, boolean or list")
    }
}
