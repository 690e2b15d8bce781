import Foundation
import WireFormat

/// One HTTP request: method, URL, headers and (for `HTTPClient.send`) a small in-memory body.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `PUT`, `POST`, …
    public var method: String
    /// An absolute `http` or `https` URL. May be a presigned URL: it is only ever logged redacted.
    public var url: String
    /// Header fields, sent in order. `Content-Length` and `Transfer-Encoding` are set by the client and ignored here.
    public var headers: [HTTPHeader]
    /// The body for `send`; ignored by `upload` (the file is the body) and by `download`.
    public var body: Data?
    /// A limit on the whole exchange; nil means none (streaming transfers rely on the stall timeout instead).
    public var timeout: Duration?
    /// Abort when no byte moves for this long; nil means the client's default.
    public var stallTimeout: Duration?
    /// Abort when fewer than this many bytes per second move, on average, over a whole stall-timeout window (in
    /// whole seconds, at least one): a peer that trickles a byte now and then never trips the stall timeout, but
    /// trips this. nil (or a transfer without a stall timeout) checks no speed.
    public var minimumSpeed: Int64?
    /// Whether to follow redirects (at most 3, `http`/`https` only).
    public var followRedirects: Bool
    /// Set on an upload of stored bytes to storage: its body is sent within the client's upload rate caps, the
    /// worker's and this tenant's (``BandwidthCaps``). nil: not capped (downloads, presign calls, message posts).
    public var bandwidthTenant: String?
    /// Set when the caller holds a transfer slot of its own that bounds how many such requests run (a file's slot
    /// of the worker's): the request starts without waiting for the client's cap (`maxConcurrentTransfers`).
    public var onOwnSlot = false

    /// A request; only the URL is required.
    public init(
        method: String = "GET", url: String, headers: [HTTPHeader] = [], body: Data? = nil,
        timeout: Duration? = nil, stallTimeout: Duration? = nil, minimumSpeed: Int64? = nil, followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.stallTimeout = stallTimeout
        self.minimumSpeed = minimumSpeed
        self.followRedirects = followRedirects
    }

    /// The URL with its query string and credentials hidden, for messages and logs.
    public var redactedURL: String { RedactedURL.redact(url) }
}
