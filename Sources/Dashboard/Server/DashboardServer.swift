import EmbeddedHTTP
import Foundation
import OperatorTools
import WireFormat

/// The dashboard on the embedded HTTP server: the page and its assets, the event stream, a batch's page data and,
/// with controls allowed, the control requests.
///
/// | request | answer |
/// |---|---|
/// | `GET /` (`/app.js`, `/app.css`) | the page, every asset embedded in the binary |
/// | `GET /events` | `text/event-stream`: `snapshot`, then `delta`s (``EventStreamBody``) |
/// | `GET /api/snapshot` | the snapshot message's JSON, once |
/// | `GET /api/feed` | how far the topics were read: records folded, caught up with the history, batches held |
/// | `GET /api/batches/ID` | the batch page's JSON; 404 for a batch not held |
/// | `POST /api/control` | produces a `retry`, `remove` or `send` control record; 403 without controls |
/// | `GET /healthz` | `ok` |
public final class DashboardServer: Sendable {
    public let hub: DashboardHub
    private let http: EmbeddedHTTPServer
    private let controls: (any ControlSink)?

    /// Starts serving on `host`:`port` (0: an ephemeral port). Controls are taken only when `controls` is given —
    /// and the hub's `controls` says so to the page.
    public init(host: String, port: UInt16, hub: DashboardHub, controls: (any ControlSink)?) throws {
        self.hub = hub
        self.controls = hub.controls ? controls : nil
        let routes = Routes(hub: hub, controls: self.controls)
        // Event streams hold their connection; the limit leaves room for many tabs and the requests beside them.
        http = try EmbeddedHTTPServer(host: host, port: port, idleTimeout: 120, connectionLimit: 512) { head in
            routes.answer(head)
        }
    }

    /// `http://host:port`.
    public var baseURL: String { http.baseURL }
    /// The bound port.
    public var port: UInt16 { http.port }

    /// Ends every event stream, then stops the server. Idempotent.
    public func stop() {
        hub.close()
        http.stop()
    }
}

/// The request router; what each answer is made of.
private struct Routes: Sendable {
    let hub: DashboardHub
    let controls: (any ControlSink)?

    func answer(_ head: HTTPRequestHead) -> HTTPRequestAction {
        switch (head.method, head.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return .respond(asset(DashboardPage.html, type: "text/html; charset=utf-8"))
        case ("GET", "/app.js"):
            return .respond(asset(DashboardPage.script, type: "text/javascript; charset=utf-8"))
        case ("GET", "/app.css"):
            return .respond(asset(DashboardPage.style, type: "text/css; charset=utf-8"))
        case ("GET", "/favicon.ico"):
            return .respond(ServerResponse(status: 204))
        case ("GET", "/healthz"):
            return .respond(.text(200, "ok\n"))
        case ("GET", "/events"):
            return .respond(ServerResponse(status: 200, headers: [
                HTTPHeader("Content-Type", "text/event-stream; charset=utf-8"), HTTPHeader("Cache-Control", "no-store"),
                HTTPHeader("X-Accel-Buffering", "no"),
            ], body: .stream(length: nil, producer: EventStreamBody(hub: hub))))
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

    private func control(_ head: HTTPRequestHead) -> HTTPRequestAction {
        guard let controls else {
            return .respond(JSONResponse.error(403, code: "controls_off", message: "this dashboard is read-only (start it with --allow-controls)"))
        }
        do {
            try ControlRequest.checkHead(head)
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
                return JSONResponse.make(200, ["kind": record.kind.rawValue, "batchId": record.batchId, "stored": stored])
            case .failure(let error):
                return JSONResponse.error(502, code: "not_produced", message: "the control record could not be produced: \(error)")
            }
        })
    }

    private func asset(_ text: String, type: String) -> ServerResponse {
        ServerResponse(status: 200, contentType: type, body: Array(text.utf8), headers: [
            HTTPHeader("Cache-Control", "no-store"),
            HTTPHeader("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'"),
            HTTPHeader("X-Content-Type-Options", "nosniff"),
        ])
    }

    private func json(_ status: Int, _ bytes: [UInt8]) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: bytes, headers: [HTTPHeader("Cache-Control", "no-store")])
    }
}
