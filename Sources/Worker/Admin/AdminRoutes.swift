import EmbeddedHTTP
import WireFormat

/// The admin endpoints' answers: `/healthz`, `/readyz` and `/metrics`, GET or HEAD only.
///
/// Runs on the admin server's connection threads, never on Swift's cooperative pool; everything it reads is
/// thread-safe.
struct AdminRoutes: Sendable {
    /// The Prometheus text exposition format, version 0.0.4.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    let health: WorkerHealth
    let metrics: MetricsRegistry
    let beforeScrape: (@Sendable () -> Void)?

    /// The server's handler: every request is answered at once.
    func handle(_ head: HTTPRequestHead) -> HTTPRequestAction {
        .respond(respond(to: head))
    }

    /// The answer to a request, from its head alone.
    func respond(to head: HTTPRequestHead) -> ServerResponse {
        let answer: () -> ServerResponse
        switch head.path {
        case "/healthz": answer = { Self.check(health.liveness) }
        case "/readyz": answer = { Self.check(health.readiness) }
        case "/metrics": answer = scrape
        default: return Self.text(404, "not found: \(head.path)\n")
        }
        guard head.method == "GET" || head.method == "HEAD" else {
            return Self.text(405, "method not allowed: use GET or HEAD\n", extra: [HTTPHeader("Allow", "GET, HEAD")])
        }
        return answer()
    }

    private func scrape() -> ServerResponse {
        // Gauges such as lag and in-flight counts are refreshed just before they are read.
        beforeScrape?()
        return ServerResponse(status: 200, contentType: Self.metricsContentType, body: Array(metrics.render().utf8),
                            headers: [HTTPHeader("Cache-Control", "no-store")])
    }

    private static func check(_ check: HealthCheck) -> ServerResponse {
        check.isPassing ? text(200, "ok\n") : text(503, "\(check.reason ?? "unavailable")\n")
    }

    private static func text(_ status: Int, _ body: String, extra: [HTTPHeader] = []) -> ServerResponse {
        // Probes must see the state of now, never a cached answer.
        .text(status, body, headers: [HTTPHeader("Cache-Control", "no-store")] + extra)
    }
}
