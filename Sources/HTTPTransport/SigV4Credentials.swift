/// An AWS-style access key: the id that names it, the secret that signs, and the session token of temporary keys.
///
/// `description` never shows the secret or the token, so a credential can be logged by accident without leaking.
public struct SigV4Credentials: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyId: String
    public var secretAccessKey: String
    /// The session token of temporary credentials (STS); sent as `X-Amz-Security-Token` and signed.
    public var sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "SigV4Credentials(accessKeyId: \(accessKeyId), secretAccessKey: <redacted>\(sessionToken == nil ? "" : ", sessionToken: <redacted>"))"
    }
}
