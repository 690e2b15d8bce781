extension SigV4Credentials {
    /// Credentials from the standard AWS variables `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
    /// `AWS_SESSION_TOKEN`; nil unless both the key id and the secret are set and non-empty.
    public init?(environment: [String: String]) {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(accessKeyId: id, secretAccessKey: secret, sessionToken: token)
    }
}
