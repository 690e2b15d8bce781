/// An AWS-style access key: the id that names it, the secret that signs, and the session token of temporary keys.
///
/// `description` never shows the secret or the token, so a credential can be logged by accident without leaking.
public struct SigV4Credentials: Sendable, Hashable, CustomStringConvertible {
    /// The public half, e.g. `AKIAIOSFODNN7EXAMPLE`.
    public var accessKeyId: String
    /// The secret half; it signs and is never sent.
    public var secretAccessKey: String
    /// The session token of temporary credentials (STS); sent as `X-Amz-Security-Token` and signed.
    public var sessionToken: String?

    /// A credential from its parts.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The key id, with the secret and token redacted.
    public var description: String {
        "SigV4Credentials(accessKeyId: \(accessKeyId), secretAccessKey: <redacted>\(sessionToken == nil ? "" : ", sessionToken: <redacted>"))"
    }
}
