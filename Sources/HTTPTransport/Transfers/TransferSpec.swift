import Foundation

/// Everything the transfer thread needs to run one request; built by `HTTPClient` on the caller's task.
struct TransferSpec: Sendable {
    /// What to send.
    enum Body: Sendable {
        case none
        case bytes(Data)
        /// A file streamed from disk, whole or the bytes of `range`; opened and read on the transfer thread.
        case file(path: String, range: Range<Int64>?)
        /// A source kept open, read in place on the transfer thread: its staged size, or the bytes of `range`.
        case source(any RandomAccessBody, range: Range<Int64>?)
    }

    /// Where the response body goes.
    enum Sink: Sendable {
        /// Kept in memory. Past `limit`, the transfer fails (`truncate == false`) or the rest is dropped.
        case memory(limit: Int, truncate: Bool)
        /// A 2xx body is written to `path` (failing past `limit`); any other body is kept in memory, truncated.
        case file(path: String, limit: Int64?)
    }

    /// Who hears about progress. Called on the transfer thread.
    enum Progress: Sendable {
        case none
        case upload(@Sendable (_ sent: Int64, _ total: Int64) -> Void)
        case download(@Sendable (_ received: Int64, _ total: Int64?) -> Void)
    }

    /// Method, URL, headers, timeouts.
    var request: HTTPRequest
    /// What to send.
    var body: Body
    /// Where the answer's body goes.
    var sink: Sink
    /// Who hears about progress.
    var progress: Progress
    /// The no-progress limit in force (the request's or the client's); nil for none.
    var stallTimeout: Duration?
    /// The limit on connecting.
    var connectTimeout: Duration
    /// The `User-Agent` header.
    var userAgent: String
    /// libcurl's upload buffer size for this transfer.
    var uploadBufferSize: Int
    /// The rate caps the body is sent within (none: as fast as it goes).
    var throttles: [ByteRateLimiter] = []
    /// A download's address and body checks; nil for none.
    var downloadGuard: DownloadGuard? = nil

    /// How much of a body that is not the payload (an error document) is kept.
    static let diagnosticBodyLimit = 64 * 1024
}
