/// A real HTTP/1.1 server on 127.0.0.1 (libmicrohttpd), answering with a handler closure.
///
/// Each connection gets a thread of its own; the handler and the body receivers it returns run on that thread and
/// may block (stalls and rate limits are implemented that way). The server listens from `init` until `stop()`.
public final class LoopbackHTTPServer: Sendable {
    /// The port the server is bound to (ephemeral unless one was asked for).
    public let port: UInt16
    private let daemon: MicroHTTPDDaemon

    /// Starts listening on 127.0.0.1:`port` (0 = an ephemeral port) and serving `handler`.
    ///
    /// - Parameters:
    ///   - idleTimeout: seconds an idle connection is kept before MHD closes it.
    ///   - connectionLimit: connections served at once; more are refused.
    ///   - handler: called on the connection's thread once the request head has arrived.
    public init(port: UInt16 = 0, idleTimeout: UInt32 = 60, connectionLimit: UInt32 = 256,
                handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) throws {
        daemon = try MicroHTTPDDaemon(port: port, idleTimeoutSeconds: idleTimeout,
                                      connectionLimit: connectionLimit, handler: handler)
        self.port = daemon.port
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Closes the listening socket and every connection; returns once all connection threads have ended.
    ///
    /// Idempotent. Blocks while a handler blocks: release stalled handlers before calling it.
    public func stop() {
        daemon.stop()
    }
}
