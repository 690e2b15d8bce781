/// Which HTTP answers are worth asking again: the one table every client of Attache reads — storage, the presign
/// endpoint, the message API, sources and the re-sign endpoint alike.
///
/// 408 (the server gave up waiting), 429 (asked to slow down) and the 5xx family are passing conditions; 501 (Not
/// Implemented) is not — the same request meets it again. Storage adds its own rows on top (`CurlUploader`: S3's
/// `307 TemporaryRedirect`, a 409 without a store code, and transient store codes whatever the status).
public enum RetryableStatus {
    public static func contains(_ status: Int) -> Bool {
        switch status {
        case 501: false
        case 500..<600, 408, 429: true
        default: false
        }
    }
}

extension HTTPResponse {
    /// Whether asking again may get another answer (``RetryableStatus``).
    public var isRetryable: Bool { RetryableStatus.contains(status) }
}
