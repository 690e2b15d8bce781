/// Which settings are credentials: the one table `attache config print` redacts by. Values that are not secrets as a
/// whole still have the credentials inside their URLs hidden (`RedactedURL`).
enum ConfigurationSecrets {
    /// Keys whose whole value is a credential.
    static let keys: Set<String> = ["presign.s3.accessKeyId", "presign.s3.secretAccessKey", "messages.apiKey", "dashboard.token"]

    /// Words that make a raw librdkafka property a credential wherever they appear in its name.
    static let propertyWords = ["password", "secret", "token", "key", "jaas", "credential"]

    /// SASL properties that only name a mechanism; every other `sasl.` property is a credential.
    static let saslNames: Set<String> = ["sasl.mechanism", "sasl.mechanisms"]

    /// Whether the key's whole value is a credential.
    static func isSecret(key path: String) -> Bool { keys.contains(path) }

    /// Whether a raw librdkafka property carries a credential: passwords, secrets, tokens, private keys and every
    /// SASL setting but the mechanism's name.
    static func isSecret(property name: String) -> Bool {
        let name = name.lowercased()
        if saslNames.contains(name) { return false }
        return name.hasPrefix("sasl.") || propertyWords.contains { name.contains($0) }
    }
}
