import EmbeddedHTTP

/// The worker's admin endpoints on `admin.listen`: `/healthz`, `/readyz` and `/metrics`
/// (`docs/operations.md#health-readiness-and-metrics`).
///
/// - `GET /healthz`: 200 `ok` while the worker is live and nothing fatal happened; 503 with the reason otherwise.
/// - `GET /readyz`: 200 `ok` while it owns partitions and is connected; 503 with the reason otherwise.
/// - `GET /metrics`: 200, the registry in the Prometheus text format (`text/plain; version=0.0.4`).
/// - HEAD is answered like GET without a body; other methods get 405, other paths 404.
///
/// Requests are served on the server's own threads (one per connection), never on Swift's cooperative pool, so a
/// scrape is answered even when every task is busy. Listens from `init` until `stop()`.
public final class AdminServer: Sendable {
    /// The `admin.listen` value the server was started with.
    public let listen: String
    private let server: EmbeddedHTTPServer

    /// Starts serving on `listen`.
    ///
    /// - Parameters:
    ///   - listen: `host:port` as in `admin.listen`; IPv6 in brackets (`[::1]:9464`). Port 0 picks a free port.
    ///   - health: what `/healthz` and `/readyz` report.
    ///   - metrics: what `/metrics` renders.
    ///   - beforeScrape: called on the serving thread right before `/metrics` is rendered, to refresh gauges (lag,
    ///     in-flight counts); it must not block for long, and it cannot await.
    /// - Throws: `AdminServerError` naming `admin.listen`: a malformed value, a port in use, or another bind failure.
    public init(listen: String, health: WorkerHealth, metrics: MetricsRegistry,
                beforeScrape: (@Sendable () -> Void)? = nil) throws {
        guard let (host, port) = AttacheConfiguration.hostAndPort(listen) else {
            throw AdminServerError(.invalidListen, listen: listen, "must be host:port")
        }
        let routes = AdminRoutes(health: health, metrics: metrics, beforeScrape: beforeScrape)
        do {
            // Probes and scrapes are short and few: a small connection limit bounds the threads they can take.
            server = try EmbeddedHTTPServer(host: host, port: port, idleTimeout: 30, connectionLimit: 32,
                                            handler: routes.handle)
        } catch let error as EmbeddedHTTPError {
            throw AdminServerError(error, listen: listen)
        }
        self.listen = listen
    }

    /// The address the endpoints listen on (`127.0.0.1`, `0.0.0.0`, `::1`).
    public var host: String { server.host }

    /// The bound port; the kernel's choice when `admin.listen` asked for port 0.
    public var port: UInt16 { server.port }

    /// `http://<host>:<port>`, a URL for a client on this machine (a wildcard host becomes loopback).
    public var baseURL: String { server.baseURL }

    /// Stops listening and closes every connection; returns once the serving threads have ended. Idempotent.
    public func stop() {
        server.stop()
    }
}
