@testable import Dashboard
import Foundation
import OperatorTools
import Records
import Synchronization
import TestSupport
import Testing

/// The dashboard's HTTP routes on a real server on loopback, driven by the curl CLI.
@Suite struct DashboardServerTests {
    /// Keeps the controls it was given, as if produced.
    final class RecordingSink: ControlSink {
        let records = Mutex<[ControlRecord]>([])
        func produce(_ control: ControlRecord) async throws -> String {
            records.withLock { $0.append(control) }
            return "attache.jobs/0/\(records.withLock { $0.count - 1 })"
        }
    }

    private func server(controls: Bool, sink: RecordingSink = RecordingSink()) throws -> DashboardServer {
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 10), controls: controls)
        hub.apply { $0.take(event: EventRecords.failed("b", "f", code: "ERR_S3_UPLOAD_FAILED", attempt: 3, willRetry: false), readAt: Date()) }
        return try DashboardServer(host: "127.0.0.1", port: 0, hub: hub, controls: sink)
    }

    /// A control request as the page sends it: with the page's CSRF token.
    private func post(_ server: DashboardServer, _ body: String, headers: [String] = ["Content-Type: application/json"]) async throws -> Curl.Result {
        try await Curl.run(["-X", "POST", "--data-binary", body] + (headers + ["X-Attache-CSRF: \(server.csrfToken)"]).flatMap { ["-H", $0] }
                           + ["\(server.baseURL)/api/control"])
    }

    @Test func servesThePageAndItsAssetsFromTheBinary() async throws {
        let server = try server(controls: false)
        defer { server.stop() }
        let page = try await Curl.run(["\(server.baseURL)/"])
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.bodyText.contains(#"<script src="/app.js"></script>"#))
        let script = try await Curl.run(["\(server.baseURL)/app.js"])
        #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(script.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        #expect(try await Curl.run(["\(server.baseURL)/app.css"]).status == 200)
        #expect(try await Curl.run(["\(server.baseURL)/nothing"]).status == 404)
    }

    @Test func theEventStreamStartsWithRetryAndTheSnapshot() async throws {
        let server = try server(controls: false)
        defer { server.stop() }
        let stream = try await Curl.run(["-N", "--max-time", "1", "\(server.baseURL)/events"])
        #expect(stream.headers["content-type"] == "text/event-stream; charset=utf-8")
        #expect(stream.bodyText.hasPrefix("retry: 1000\n\nevent: snapshot\ndata: {"))
        #expect(stream.bodyText.contains(#""id":"b""#))
    }

    @Test func aBatchPageAndTheSnapshotAreJSON() async throws {
        let server = try server(controls: false)
        defer { server.stop() }
        let detail = try await Curl.run(["\(server.baseURL)/api/batches/b"])
        #expect(detail.status == 200 && detail.bodyText.contains(#""state":"failed""#))
        #expect(try await Curl.run(["\(server.baseURL)/api/batches/other"]).status == 404)
        let snapshot = try await Curl.run(["\(server.baseURL)/api/snapshot"])
        #expect(snapshot.status == 200 && snapshot.bodyText.contains(#""controls":false"#))
        let feed = try await Curl.run(["\(server.baseURL)/api/feed"])
        #expect(feed.bodyText == #"{"events":1,"jobs":0,"deadLetters":0,"caughtUp":false,"batches":1,"maxBatches":10,"evicted":0}"#)
    }

    @Test func aReadOnlyDashboardRefusesControls() async throws {
        let sink = RecordingSink()
        let server = try server(controls: false, sink: sink)
        defer { server.stop() }
        let answer = try await post(server, #"{"kind":"retry","batchId":"b","fileId":"f"}"#)
        #expect(answer.status == 403 && answer.bodyText.contains("read-only"))
        #expect(sink.records.withLock { $0.isEmpty })
    }

    @Test func aControlRequestProducesItsRecord() async throws {
        let sink = RecordingSink()
        let server = try server(controls: true, sink: sink)
        defer { server.stop() }
        let answer = try await post(server, #"{"kind":"retry","batchId":"b","fileId":"f"}"#)
        #expect(answer.status == 200 && answer.bodyText.contains(#""stored":"attache.jobs/0/0""#))
        let produced = sink.records.withLock { $0 }
        #expect(produced.map(\.kind) == [.retry] && produced.first?.fileId == "f" && produced.first?.batchId == "b")
        #expect(String(decoding: produced[0].value, as: UTF8.self) == #"{"kind":"retry","batchId":"b","fileId":"f"}"#)
    }

    @Test func controlsTheDashboardDoesNotOfferOrFromAnotherSiteAreRefused() async throws {
        let sink = RecordingSink()
        let server = try server(controls: true, sink: sink)
        defer { server.stop() }
        #expect(try await post(server, #"{"kind":"clear","batchId":"b"}"#).status == 400)
        #expect(try await post(server, #"{"kind":"retry","batchId":"b"}"#).status == 400, "retry needs a file")
        #expect(try await post(server, #"{"kind":"send","batchId":"b"}"#, headers: ["Content-Type: text/plain"]).status == 415)
        #expect(try await post(server, #"{"kind":"send","batchId":"b"}"#,
                               headers: ["Content-Type: application/json", "Origin: http://evil.example"]).status == 403)
        #expect(try await post(server, #"{"kind":"send","batchId":"b"}"#,
                               headers: ["Content-Type: application/json", "Sec-Fetch-Site: cross-site"]).status == 403)
        #expect(sink.records.withLock { $0.isEmpty })
    }
}
