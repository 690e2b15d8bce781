import EmbeddedHTTP
import Foundation
import Records
import Synchronization
import WireFormat

/// The dashboard on the embedded HTTP server: the page and its assets, the event stream, a batch's page data and,
/// with controls allowed, the control requests.
///
/// Every request first passes the ``RequestGate``: a `Host` the dashboard answers to (421 otherwise) and, with a
/// token, the token (401 otherwise; `GET /?token=T` sets the cookie and redirects to `/`).
///
/// | request | answer |
/// |---|---|
/// | `GET /` (`/app.js`, `/app.css`) | the page, every asset embedded in the binary |
/// | `GET /events` | `text/event-stream`: `snapshot`, then `delta`s (``EventStreamBody``); 503 beyond `dashboard.maxClients` |
/// | `GET /api/snapshot` | the snapshot message's JSON, once |
/// | `GET /api/feed` | how far the topics were read: records folded, caught up with the history, batches held |
/// | `GET /api/batches/ID` | the batch page's JSON; 404 for a batch not held |
/// | `POST /api/control` | produces a `retry`, `remove` or `send` control record; 403 without controls or the page's CSRF token |
/// | `GET /healthz` | `ok` |
public final class DashboardServer: Sendable {
    public let hub: DashboardHub
    private let http: EmbeddedHTTPServer
    private let routes: Routes

    /// Starts serving on `host`:`port` (0: an ephemeral port). Controls are taken only when `controls` is given —
    /// and the hub's `controls` says so to the page.
    public init(host: String, port: UInt16, hub: DashboardHub, controls: (any ControlSink)?,
                access: DashboardAccess = DashboardAccess()) throws {
        self.hub = hub
        let routes = Routes(hub: hub, controls: hub.controls ? controls : nil, csrf: CSRFToken())
        self.routes = routes
        // Event streams hold their connection; the rest leaves room for the page, its requests and a few tabs more
        // than the limit, which are answered 503 rather than left waiting.
        let connections = UInt32(hub.streamLimits.maxClients + 64)
        http = try EmbeddedHTTPServer(host: host, port: port, idleTimeout: 120, connectionLimit: connections) { head in
            routes.answer(head)
        }
        // The port is known once bound: until the gate is in place every request is refused as misdirected.
        routes.open(RequestGate(hosts: HostAllowList(listenHosts: [host, http.host], port: http.port, allowedHosts: access.allowedHosts),
                                token: AccessToken(access.token, port: http.port)))
    }

    /// `http://host:port`.
    public var baseURL: String { http.baseURL }
    /// The bound port.
    public var port: UInt16 { http.port }
    /// The CSRF token written into this server's page.
    var csrfToken: String { routes.csrf.value }

    /// Ends every event stream, then stops the server. Idempotent.
    public func stop() {
        hub.close()
        http.stop()
    }
}

/// The request router; what each answer is made of.
private final class Routes: Sendable {
    let hub: DashboardHub
    let controls: (any ControlSink)?
    let csrf: CSRFToken
    private let page: [UInt8]
    private let gate = Mutex<RequestGate?>(nil)

    init(hub: DashboardHub, controls: (any ControlSink)?, csrf: CSRFToken) {
        self.hub = hub
        self.controls = controls
        self.csrf = csrf
        page = Array(DashboardPage.html(csrf: csrf).utf8)
    }

    func open(_ gate: RequestGate) {
        self.gate.withLock { $0 = gate }
    }

    func answer(_ head: HTTPRequestHead) -> HTTPRequestAction {
        guard let gate = gate.withLock({ $0 }) else {
            return .respond(.text(421, "misdirected request: the dashboard is starting\n"))
        }
        if let refusal = gate.refusal(of: head) { return .respond(refusal) }
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return .respond(asset(page, type: "text/html; charset=utf-8"))
        case ("GET", "/app.js"):
            return .respond(asset(Array(DashboardPage.script.utf8), type: "text/javascript; charset=utf-8"))
        case ("GET", "/app.css"):
            return .respond(asset(Array(DashboardPage.style.utf8), type: "text/css; charset=utf-8"))
        case ("GET", "/favicon.ico"):
            return .respond(ServerResponse(status: 204))
        case ("GET", "/healthz"):
            return .respond(.text(200, "ok\n"))
        case ("GET", "/events"):
            return .respond(events())
        case ("GET", "/api/snapshot"):
            return .respond(json(200, hub.snapshot()))
        case ("GET", "/api/feed"):
            return .respond(json(200, hub.feed()))
        case ("GET", let path) where path.hasPrefix("/api/batches/"):
            let batchId = String(path.dropFirst("/api/batches/".count))
            guard let detail = hub.detail(of: batchId) else {
                return .respond(JSONResponse.error(404, code: "not_found", message: "no batch \(batchId) on the dashboard"))
            }
            return .respond(json(200, detail))
        case ("POST", "/api/control"):
            return control(head)
        default:
            return .respond(JSONResponse.error(404, code: "not_found", message: "\(head.method) \(head.path) is not served here"))
        }
    }

    /// The event stream, opened here so that a stream beyond the limit is refused with a status the browser sees.
    private func events() -> ServerResponse {
        switch hub.openStream() {
        case .opened(let id, let snapshot):
            return ServerResponse(status: 200, headers: [
                HTTPHeader("Content-Type", "text/event-stream; charset=utf-8"), HTTPHeader("Cache-Control", "no-store"),
                HTTPHeader("X-Accel-Buffering", "no"),
            ], body: .stream(length: nil, producer: EventStreamBody(hub: hub, stream: id, snapshot: snapshot)))
        case .full(let limit):
            var response = JSONResponse.error(503, code: "too_many_streams", message:
                "this dashboard already serves \(limit) live streams, its limit (dashboard.maxClients): close another tab or raise the limit")
            response.headers.append(HTTPHeader("Retry-After", "10"))
            return response
        case .closed:
            return JSONResponse.error(503, code: "stopping", message: "the dashboard is stopping")
        }
    }

    private func control(_ head: HTTPRequestHead) -> HTTPRequestAction {
        guard let controls else {
            return .respond(JSONResponse.error(403, code: "controls_off", message: "this dashboard is read-only (start it with --allow-controls)"))
        }
        do {
            try ControlRequest.checkHead(head, csrf: csrf)
        } catch {
            return .respond(JSONResponse.error(error.status, code: "refused", message: error.message))
        }
        return .readBody(CollectedBody(limit: 4096) { body in
            let record: ControlRecord
            switch Result(catching: { () throws(ControlRequest.Refusal) in try ControlRequest.record(from: body) }) {
            case .success(let parsed): record = parsed
            case .failure(let refusal): return JSONResponse.error(refusal.status, code: "refused", message: refusal.message)
            }
            switch BlockingCall.run({ try await controls.produce(record) }) {
            case .success(let stored):
                return JSONResponse.make(200, ["kind": .string(record.kind.rawValue), "batchId": .string(record.batchId), "stored": .string(stored)])
            case .failure(let error):
                return JSONResponse.error(502, code: "not_produced", message: "the control record could not be produced: \(error)")
            }
        })
    }

    private func asset(_ bytes: [UInt8], type: String) -> ServerResponse {
        ServerResponse(status: 200, contentType: type, body: bytes, headers: [
            HTTPHeader("Cache-Control", "no-store"),
            HTTPHeader("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'"),
            HTTPHeader("X-Content-Type-Options", "nosniff"),
            // The page's address may have carried the token: it is never passed on.
            HTTPHeader("Referrer-Policy", "no-referrer"),
        ])
    }

    private func json(_ status: Int, _ bytes: [UInt8]) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: bytes, headers: [HTTPHeader("Cache-Control", "no-store")])
    }
}
