import Foundation
import WireFormat

/// One configuration key: its dotted path, how a value for it is parsed into the configuration, and how its
/// effective value is written back in the form the file accepts (for `attache config print`).
struct ConfigurationKey: Sendable {
    enum Setting: Sendable {
        case text(String)
        case list([String])
        /// An object of names to scalars, from the file; the environment writes it `name=value,name=value`.
        case object([String: String])
    }

    /// Keys whose value is an object of names the operator chooses, kept whole rather than read as nested keys.
    static let objectPaths: Set<String> = ["kafka.properties", "limits.tenantWeights"]

    let path: String
    let apply: @Sendable (inout AttacheConfiguration, Setting) throws -> Void
    let read: @Sendable (AttacheConfiguration) -> String

    /// Credentials: printed redacted (``ConfigurationSecrets``).
    var isSecret: Bool { ConfigurationSecrets.isSecret(key: path) }

    /// Every key the configuration file and the environment accept.
    static let all: [ConfigurationKey] = [
        text("kafka.brokers", \.kafka.brokers),
        text("kafka.groupId", \.kafka.groupId),
        bool("kafka.createTopics", \.kafka.createTopics),
        text("kafka.jobsTopic", \.kafka.jobsTopic),
        text("kafka.eventsTopic", \.kafka.eventsTopic),
        text("kafka.dlqTopic", \.kafka.dlqTopic),
        text("kafka.messagesTopic", \.kafka.messagesTopic),
        text("kafka.batchesTopic", \.kafka.batchesTopic),
        bool("state.durable", \.state.durable),
        duration("state.flushInterval", \.state.flushInterval),
        size("state.cacheMax", \.state.cacheMax),
        choice("presign.mode", \.presign.mode),
        text("presign.url", \.presign.url),
        text("presign.s3.bucket", \.presign.s3.bucket),
        text("presign.s3.region", \.presign.s3.region),
        text("presign.s3.endpoint", \.presign.s3.endpoint),
        text("presign.s3.accessKeyId", \.presign.s3.accessKeyId),
        text("presign.s3.secretAccessKey", \.presign.s3.secretAccessKey),
        text("presign.s3.prefix", \.presign.s3.prefix),
        bool("presign.s3.pathStyle", \.presign.s3.pathStyle),
        text("presign.s3.publicBaseUrl", \.presign.s3.publicBaseUrl),
        text("presign.s3.serverSideEncryption", \.presign.s3.serverSideEncryption),
        text("presign.s3.kmsKeyId", \.presign.s3.kmsKeyId),
        duration("presign.timeout", \.presign.timeout),
        duration("presign.minValidity", \.presign.minValidity),
        choice("messages.mode", \.messages.mode),
        text("messages.url", \.messages.url),
        text("messages.apiKey", \.messages.apiKey),
        size("limits.fileSizeMax", \.limits.fileSizeMax),
        int("limits.fileCountMax", \.limits.fileCountMax),
        int("limits.attachmentsPerMessage", \.limits.attachmentsPerMessage),
        size("limits.inlineMax", \.limits.inlineMax),
        int("limits.filesPerJob", \.limits.filesPerJob),
        int("limits.messageOptionsMax", \.limits.messageOptionsMax, size: true),
        optionalSize("limits.messageBytesMax", \.limits.messageBytesMax),
        int("events.maxBytes", \.events.maxBytes, size: true),
        int("upload.concurrency", \.upload.concurrency),
        duration("upload.stallTimeout", \.upload.stallTimeout),
        size("upload.multipartThreshold", \.upload.multipartThreshold),
        size("upload.partSize", \.upload.partSize),
        optionalSize("upload.maxBytesPerSecond", \.upload.maxBytesPerSecond),
        optionalSize("upload.maxBytesPerSecondPerTenant", \.upload.maxBytesPerSecondPerTenant),
        int("retry.maxAttempts", \.retry.maxAttempts),
        duration("retry.baseDelay", \.retry.baseDelay),
        duration("retry.maxDelay", \.retry.maxDelay),
        text("worker.id", \.worker.id),
        int("worker.maxTransfers", \.worker.maxTransfers),
        int("worker.maxInFlightBatches", \.worker.maxInFlightBatches),
        int("worker.maxQueuedFiles", \.worker.maxQueuedFiles),
        weights("limits.tenantWeights", \.worker.tenantWeights),
        int("limits.tenantMaxTransfers", \.worker.tenantMaxTransfers),
        duration("worker.shutdownGrace", \.worker.shutdownGrace),
        duration("worker.revokeGrace", \.worker.revokeGrace),
        duration("worker.batchTTL", \.worker.batchTTL),
        int("worker.maxCachedBatches", \.worker.maxCachedBatches),
        text("sources.root", \.sources.root),
        text("sources.resignUrl", \.sources.resignUrl),
        list("sources.allowHosts", \.sources.allowHosts),
        bool("sources.stripLocation", \.sources.stripLocation),
        size("sources.minSpeed", \.sources.minSpeed),
        duration("sources.fetchTimeout", \.sources.fetchTimeout),
        text("staging.dir", \.staging.dir),
        size("staging.cacheMax", \.staging.cacheMax),
        duration("staging.retainFailed", \.staging.retainFailed),
        int("staging.maxOpenSources", \.staging.maxOpenSources),
        optionalDuration("storage.sweepInterval", \.storage.sweepInterval),
        text("admin.listen", \.adminListen),
        text("dashboard.listen", \.dashboard.listen),
        int("dashboard.maxBatches", \.dashboard.maxBatches),
        list("dashboard.allowedHosts", \.dashboard.allowedHosts),
        text("dashboard.token", \.dashboard.token),
        int("dashboard.maxClients", \.dashboard.maxClients),
        choice("log.level", \.log.level),
        choice("log.format", \.log.format),
    ]

    private static func parsed<T>(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, T> & Sendable, expected: String,
                                  format: @escaping @Sendable (T) -> String,
                                  _ parse: @escaping @Sendable (String) -> T?) -> ConfigurationKey {
        ConfigurationKey(path: path, apply: { configuration, setting in
            guard case .text(let text) = setting, let value = parse(text) else {
                throw ConfigurationError(key: path, "expected \(expected)")
            }
            configuration[keyPath: field] = value
        }, read: { format($0[keyPath: field]) })
    }

    private static func text(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, String> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "a string", format: { $0 }) { $0 }
    }

    private static func bool(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Bool> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "true or false", format: { String($0) }, ConfigurationValue.bool)
    }

    /// A whole number; with `size`, also written with `KiB`, `MiB` or `GiB`.
    private static func int(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Int> & Sendable,
                            size: Bool = false) -> ConfigurationKey {
        if size {
            return parsed(path, field, expected: "a size in bytes or with KiB, MiB, GiB (e.g. 16KiB)",
                          format: { ConfigurationValue.sizeText(Int64($0)) }) {
                ConfigurationValue.size($0).flatMap { Int(exactly: $0) }
            }
        }
        return parsed(path, field, expected: "a whole number", format: { String($0) }) { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    private static func size(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Int64> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "a size in bytes or with KiB, MiB, GiB (e.g. 100MiB)", format: ConfigurationValue.sizeText,
               ConfigurationValue.size)
    }

    /// A size that may be left unset: `0` (or nothing) unsets it.
    private static func optionalSize(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Int64?> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "a size in bytes or with KiB, MiB, GiB (e.g. 100MiB)",
               format: { $0.map(ConfigurationValue.sizeText) ?? "" }) { text in
            if text.trimmingCharacters(in: .whitespaces).isEmpty { return .some(nil) }
            return ConfigurationValue.size(text).map { $0 == 0 ? nil : $0 }
        }
    }

    private static func duration(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Duration> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "a duration such as 250ms, 30s, 5m or 1h", format: ConfigurationValue.durationText,
               ConfigurationValue.duration)
    }

    /// A duration, or nothing (empty or `0s`): the feature it times is off.
    private static func optionalDuration(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, Duration?> & Sendable) -> ConfigurationKey {
        parsed(path, field, expected: "a duration such as 250ms, 30s, 5m or 1h (empty: off)",
               format: { $0.map(ConfigurationValue.durationText) ?? "" }) { text in
            if text.trimmingCharacters(in: .whitespaces).isEmpty { return .some(nil) }
            return ConfigurationValue.duration(text).map { $0 == .zero ? nil : $0 }
        }
    }

    private static func choice<T: RawRepresentable & CaseIterable & SendableMetatype>(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, T> & Sendable) -> ConfigurationKey where T.RawValue == String {
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        return parsed(path, field, expected: "one of \(names)", format: \.rawValue) { T(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Names to whole numbers: `{"acme": 3}` in the file, `acme=3,globex=2` in the environment.
    private static func weights(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, [String: Int]> & Sendable) -> ConfigurationKey {
        ConfigurationKey(path: path, apply: { configuration, setting in
            var pairs: [String: String] = [:]
            switch setting {
            case .object(let object):
                pairs = object
            case .text(let text):
                for item in ConfigurationValue.list(text) {
                    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty else {
                        throw ConfigurationError(key: path, "expected name=weight pairs separated by commas")
                    }
                    pairs[parts[0]] = parts[1]
                }
            case .list:
                throw ConfigurationError(key: path, "expected an object of names to whole numbers")
            }
            configuration[keyPath: field] = try pairs.mapValues { text in
                guard let weight = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw ConfigurationError(key: path, "weights are whole numbers")
                }
                return weight
            }
        }, read: { $0[keyPath: field].sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") })
    }

    private static func list(_ path: String, _ field: WritableKeyPath<AttacheConfiguration, [String]> & Sendable) -> ConfigurationKey {
        ConfigurationKey(path: path, apply: { configuration, setting in
            switch setting {
            case .list(let values): configuration[keyPath: field] = values
            case .text(let text): configuration[keyPath: field] = ConfigurationValue.list(text)
            case .object: throw ConfigurationError(key: path, "expected a list")
            }
        }, read: { $0[keyPath: field].joined(separator: ",") })
    }
}
