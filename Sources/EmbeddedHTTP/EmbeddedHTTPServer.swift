/// A real HTTP/1.1 server (libmicrohttpd) on one IPv4 or IPv6 address, answering with a handler closure.
///
/// Each connection gets a thread of its own; the handler and the body receivers it returns run on that thread and
/// may block (stalls and rate limits are implemented that way). The server listens from `init` until `stop()`.
public final class EmbeddedHTTPServer: Sendable {
    /// The port the server is bound to (ephemeral unless one was asked for).
    public let port: UInt16
    private let daemon: MicroHTTPDDaemon
    private let address: BindAddress

    /// Starts listening on `host`:`port` (0 = an ephemeral port) and serving `handler`.
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 address (`0.0.0.0`, `::`: every interface) or `localhost`; no name lookups.
    ///   - idleTimeout: seconds an idle connection is kept before MHD closes it.
    ///   - connectionLimit: connections served at once; more are refused.
    ///   - handler: called on the connection's thread once the request head has arrived.
    /// - Throws: `EmbeddedHTTPError` (a bad address, a port in use…).
    public init(host: String = "127.0.0.1", port: UInt16 = 0, idleTimeout: UInt32 = 60, connectionLimit: UInt32 = 256,
                handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) throws {
        address = try BindAddress(host)
        daemon = try MicroHTTPDDaemon(address: address, port: port, idleTimeoutSeconds: idleTimeout,
                                      connectionLimit: connectionLimit, handler: handler)
        self.port = daemon.port
    }

    /// The address the server listens on, in canonical form (`127.0.0.1`, `::1`, `0.0.0.0`).
    public var host: String { address.text }

    /// `http://<host>:<port>`, without a trailing slash; a wildcard host is replaced by the loopback address.
    public var baseURL: String { "http://\(address.urlHost):\(port)" }

    /// Closes the listening socket and every connection; returns once all connection threads have ended.
    ///
    /// Idempotent. Blocks while a handler blocks: release stalled handlers before calling it.
    public func stop() {
        daemon.stop()
    }
}
