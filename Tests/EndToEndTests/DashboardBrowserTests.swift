import DevServices
import Foundation
import Testing
import TestSupport
import WireFormat

/// `attache dashboard` in headless Chromium against a real run: `attache dev-broker`, a worker, the dev services and
/// a mix of batches — uploads (one trickled, so its bar moves), a rejection, a failure for good and a dead letter.
/// The dashboard with controls has a token: the page is opened through its `/?token=` link, and every request after
/// carries the cookie it set.
/// The page is read over the DevTools protocol; screenshots of the overview and of a batch page are written to
/// `.build/dashboard-screenshots/`.
@Suite(.serialized, .timeLimit(.minutes(2))) struct DashboardBrowserTests {
    /// Where the screenshots go, for a person to look at.
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/dashboard-screenshots")

    private struct Run {
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        var jobs: String { "dash-\(tag).jobs" }
        var events: String { "dash-\(tag).events" }
        var dlq: String { "dash-\(tag).dlq" }
        var trip: String { "trip-\(tag)" }
        var rejected: String { "empty-\(tag)" }
        var failing: String { "flaky-\(tag)" }
        var slowFile: String { "clip-\(tag)" }
        var flakyFile: String { "scan-\(tag)" }
        let token = "token-\(UUID().uuidString)"
    }

    private func startDashboard(_ environment: EndToEndEnvironment, _ run: Run, port: Int, controls: Bool, token: String? = nil,
                                name: String) async throws -> ChildProcess {
        let dashboard = try ChildProcess(
            name: name, executable: EndToEndEnvironment.attacheBinary,
            arguments: ["dashboard", "--listen", "127.0.0.1:\(port)"] + (controls ? ["--allow-controls"] : []),
            environment: ["ATTACHE_KAFKA_BROKERS": environment.brokers, "ATTACHE_KAFKA_JOBS_TOPIC": run.jobs,
                          "ATTACHE_KAFKA_EVENTS_TOPIC": run.events, "ATTACHE_KAFKA_DLQ_TOPIC": run.dlq]
                .merging(token.map { ["ATTACHE_DASHBOARD_TOKEN": $0] } ?? [:]) { $1 },
            directory: environment.workspace)
        #expect(try await dashboard.firstLine(timeout: .seconds(20)) == "http://127.0.0.1:\(port)/")
        return dashboard
    }

    private func job(_ batchId: String, receiver: String, tenant: String? = nil, files: [JSONValue]) -> (key: String, value: String) {
        var job: [String: JSONValue] = ["kind": "upload", "batchId": .string(batchId),
                                        "receiver": ["id": .string(receiver), "type": receiver.hasPrefix("group-") ? "group" : "user"], "sender": "uid-7",
                                        "files": .array(files), "message": ["send": "auto", "caption": "from the dashboard test"]]
        if let tenant { job["tenant"] = .string(tenant) }
        return (batchId, Jobs.json(job))
    }

    /// The table row of a batch, as `data-*` counts; empty until the row is drawn.
    private func row(_ batchId: String) -> String {
        #"(() => { const r = document.querySelector(`.vrow[data-id="\#(batchId)"]`); return r ? `${r.dataset.uploaded}/${r.dataset.failed}/${r.dataset.rejected}/${r.dataset.active}` : ""; })()"#
    }

    @Test func theDashboardShowsARealRunAndItsControlsAndRecoversFromARestart() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let run = Run()
        let store = environment.services.store
        store.faults.inject(.trickleRequestBody(bytesPerSecond: 96 * 1024), target: .fileId(run.slowFile))
        store.faults.inject(.serverError(status: 503, retryAfter: nil), target: .fileId(run.flakyFile), times: 1)
        let worker = try environment.startWorker(name: "worker-\(run.tag)", group: "dash-\(run.tag)", jobsTopic: run.jobs, eventsTopic: run.events,
                                                 extra: ["ATTACHE_KAFKA_DLQ_TOPIC": run.dlq, "ATTACHE_RETRY_MAX_ATTEMPTS": "1"])
        defer { worker.signal(SIGKILL) }
        let port = try LoopbackPort.free()
        let token = run.token
        var dashboard = try await startDashboard(environment, run, port: port, controls: true, token: token, name: "dashboard-\(run.tag)")
        defer { dashboard.signal(SIGKILL) }
        let readOnlyPort = try LoopbackPort.free()
        let readOnly = try await startDashboard(environment, run, port: readOnlyPort, controls: false, name: "dashboard-ro-\(run.tag)")
        defer { readOnly.signal(SIGKILL) }
        let browser = try await HeadlessChromium(directory: environment.workspace)
        defer { browser.close() }
        do {
            try await exercise(browser, environment, run, port: port, token: token, readOnlyPort: readOnlyPort, dashboard: &dashboard,
                               readOnly: readOnly, worker: worker)
        } catch {
            // What the page showed when it went wrong, beside the screenshots.
            try? await browser.screenshot(to: Self.screenshots.appendingPathComponent("failure.png").path)
            throw error
        }
    }

    private func exercise(_ browser: HeadlessChromium, _ environment: EndToEndEnvironment, _ run: Run, port: Int, token: String,
                          readOnlyPort: Int, dashboard: inout ChildProcess, readOnly: ChildProcess, worker: ChildProcess) async throws {
        // Without the token nothing is served; a foreign Host (DNS rebinding) is refused before the token is looked at.
        let base = "http://127.0.0.1:\(port)"
        #expect(try await Curl.run(["\(base)/"]).status == 401)
        for path in ["/", "/events", "/api/snapshot"] {
            let rebound = try await Curl.run(["--max-time", "5", "-H", "Host: rebound.attacker.example:\(port)", "-H", "Authorization: Bearer \(token)",
                                              "\(base)\(path)"])
            #expect(rebound.status == 421, "\(path) through a foreign Host")
        }
        #expect(try await Curl.run(["-H", "Host: rebound.attacker.example:\(readOnlyPort)", "http://127.0.0.1:\(readOnlyPort)/"]).status == 421)

        // The link with the token sets the cookie and lands on / without it.
        try await browser.navigate("\(base)/?token=\(token)")
        _ = try await browser.waitFor("the first snapshot", "document.documentElement.dataset.ready")
        #expect(try await browser.evaluate("location.href")?.stringValue == "\(base)/")
        #expect(try await browser.evaluate("document.cookie")?.stringValue == "", "the cookie is HttpOnly")

        let jpeg = { (seed: Int, size: Int) in Jobs.inline("photo-\(seed)", name: "photo-\(seed).jpg", mimeType: "image/jpeg",
                                                            bytes: Jobs.bytes(magic: Jobs.jpeg, size: size, seed: seed)) }
        try await Kcat.produce(brokers: environment.brokers, topic: run.jobs, [
            job(run.trip, receiver: "uid-alice", tenant: "acme-\(run.tag)", files: [
                jpeg(1, 40_000), jpeg(2, 60_000),
                Jobs.inline("notes", name: "notes.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 20_000, seed: 3)),
                Jobs.inline(run.slowFile, name: "clip.jpg", mimeType: "image/jpeg", bytes: Jobs.bytes(magic: Jobs.jpeg, size: 300_000, seed: 4)),
            ]),
            job(run.rejected, receiver: "uid-bob", files: [
                Jobs.inline("blank", name: "blank.jpg", mimeType: "image/jpeg", bytes: Data()), jpeg(5, 10_000),
            ]),
            job(run.failing, receiver: "uid-carol", files: [
                Jobs.inline(run.flakyFile, name: "scan.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 30_000, seed: 6)),
            ]),
            (key: "poison-\(run.tag)", value: "this is not a job"),
        ] + (1...9).map { index in
            // Everyday traffic around them, so the table is a table.
            job("order-\(index)-\(run.tag)", receiver: ["uid-alice", "uid-dave", "group-ops"][index % 3],
                files: (0..<(index % 3 + 1)).map { jpeg(10 * index + $0, 6_000 + 1_000 * index) })
        })

        // The trickled file's bar on its batch page: part way, then 100 % once stored.
        try await browser.evaluate("location.hash = '#/batch/\(run.trip)'")
        let bar = #"(() => { const b = document.querySelector('tr.file[data-file="\#(run.slowFile)"] .bar'); return b ? Number(b.dataset.percent) : -1; })()"#
        let partWay = try await browser.waitFor("the trickled file part way", "(\(bar) > 0 && \(bar) < 100) ? \(bar) : 0", timeout: .seconds(40))
        _ = try await browser.waitFor("the trickled file at 100 %", "\(bar) === 100 && document.querySelector('tr.file[data-file=\"\(run.slowFile)\"]').dataset.state === 'uploaded'",
                                      timeout: .seconds(30))
        let width = try await browser.evaluate(#"document.querySelector('tr.file[data-file="\#(run.slowFile)"] .bar i').style.width"#)?.stringValue
        #expect(width == "100%", "seen part way at \(partWay.scalarText ?? "?") %")
        _ = try await browser.waitFor("the batch's message", "document.querySelector('#batch tr[data-muid]') !== null")
        try await browser.screenshot(to: Self.screenshots.appendingPathComponent("batch.png").path)

        // The overview: counts per batch, the rejection's code, the failure and the dead letter.
        try await browser.evaluate("location.hash = '#/'")
        #expect(try await browser.waitFor("the trip's row", "\(row(run.trip)) === '4/0/0/0' ? 'ok' : ''").stringValue == "ok")
        #expect(try await browser.waitFor("the rejection's row", "\(row(run.rejected)) === '1/0/1/0' ? 'ok' : ''").stringValue == "ok")
        #expect(try await browser.waitFor("the failure's row", "\(row(run.failing)) === '0/1/0/0' ? 'ok' : ''").stringValue == "ok")
        let codes = try await browser.waitFor("the codes in the errors panel",
                                              "[...document.querySelectorAll('#errors-legend [data-code]')].map(e => e.dataset.code).sort().join(',')")
        #expect(codes.stringValue == "ERR_FILE_DATA_EMPTY,ERR_S3_UPLOAD_FAILED")
        let latest = try await browser.evaluate("document.getElementById('errors-latest').textContent")?.stringValue ?? ""
        #expect(latest.contains("ERR_FILE_DATA_EMPTY") && latest.contains("\(run.rejected) / blank"))
        let dead = try await browser.waitFor("the dead letter",
                                             #"[...document.querySelectorAll('#dead-list .dead-letter')].map(e => e.textContent).join('\n')"#).stringValue ?? ""
        #expect(dead.contains("\(run.jobs)/") && dead.contains("key poison-\(run.tag)") && dead.contains("not valid JSON"))
        #expect(try await browser.waitFor("every batch", "document.querySelectorAll('.vrow').length === 12 ? 'ok' : ''").stringValue == "ok")
        // The tenant filter: only the trip's batch is acme's.
        try await browser.evaluate("(() => { const f = document.getElementById('f-tenant'); f.value = 'ACME-\(run.tag)'; f.dispatchEvent(new Event('input')); })()")
        #expect(try await browser.waitFor("acme's batch alone", "(() => { const rows = [...document.querySelectorAll('.vrow')]; return rows.length === 1 && rows[0].dataset.id === '\(run.trip)' ? 'ok' : ''; })()").stringValue == "ok")
        try await browser.evaluate("(() => { const f = document.getElementById('f-tenant'); f.value = ''; f.dispatchEvent(new Event('input')); })()")
        _ = try await browser.waitFor("every batch again", "document.querySelectorAll('.vrow').length === 12 ? 'ok' : ''")
        let workers = try await browser.evaluate("[...document.querySelectorAll('#workers-list tr[data-worker]')].map(e => e.dataset.worker).join(',')")
        #expect(workers?.stringValue == "worker-\(run.tag)")
        try await browser.evaluate("document.getElementById('vscroll').scrollTop = 0")
        try await Task.sleep(for: .milliseconds(300))
        try await browser.screenshot(to: Self.screenshots.appendingPathComponent("overview.png").path)

        // Read-only: the failed file has no buttons, and the server refuses a control.
        try await browser.navigate("http://127.0.0.1:\(readOnlyPort)/#/batch/\(run.failing)")
        let failedRow = #"document.querySelector('tr.file[data-file="\#(run.flakyFile)"]')"#
        _ = try await browser.waitFor("the failed file, read-only", "\(failedRow) && \(failedRow).dataset.state === 'failed'")
        #expect(try await browser.evaluate("document.querySelectorAll('button[data-control]').length")?.wholeNumber == 0)
        #expect(try await browser.evaluate("document.getElementById('mode').textContent")?.stringValue == "read-only")
        let refused = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                                          #"{"kind":"retry","batchId":"\#(run.failing)","fileId":"\#(run.flakyFile)"}"#,
                                          "http://127.0.0.1:\(readOnlyPort)/api/control"])
        #expect(refused.status == 403)

        // With controls: Retry produces a retry record, and the file (its fault spent) is stored.
        try await browser.navigate("\(base)/#/batch/\(run.failing)")
        _ = try await browser.waitFor("the Retry button", #"document.querySelector('tr.file[data-file="\#(run.flakyFile)"] button[data-control="retry"]')"# + " !== null")
        #expect(try await browser.evaluate(#"document.querySelectorAll('button[data-control="remove"]').length"#)?.wholeNumber == 1)
        try await browser.evaluate(#"document.querySelector('button[data-control="retry"]').click()"#)
        #expect(try await browser.waitFor("the control sent", "document.documentElement.dataset.lastControl").stringValue == "retry:\(run.flakyFile)")
        let retry = #"{"kind":"retry","batchId":"\#(run.failing)","fileId":"\#(run.flakyFile)"}"#
        let controls = try await eventually("the retry record on the jobs topic") {
            let records = try await Kcat.consume(brokers: environment.brokers, topic: run.jobs).filter { $0.key == run.failing && $0.value == retry }
            return records.isEmpty ? nil : records
        }
        #expect(controls.count == 1)
        _ = try await browser.waitFor("the retried file stored", "\(failedRow) && \(failedRow).dataset.state === 'uploaded'")

        // The dashboard restarts; the page notices, reconnects on its own and shows everything again.
        try await browser.evaluate("location.hash = '#/'")
        dashboard.signal(SIGTERM)
        #expect(await dashboard.waitForExit(timeout: .seconds(10)) == 0)
        _ = try await browser.waitFor("the lost connection", "document.getElementById('conn').classList.contains('reconnecting')")
        dashboard = try await startDashboard(environment, run, port: port, controls: true, token: token, name: "dashboard-again-\(run.tag)")
        _ = try await browser.waitFor("a second snapshot", "Number(document.documentElement.dataset.snapshots) >= 2", timeout: .seconds(20))
        #expect(try await browser.evaluate("document.getElementById('conn').textContent")?.stringValue == "live")
        #expect(try await browser.waitFor("the trip's row again", "\(row(run.trip)) === '4/0/0/0' ? 'ok' : ''").stringValue == "ok")
        #expect(try await browser.waitFor("the retried batch's row", "\(row(run.failing)) === '1/0/0/0' ? 'ok' : ''").stringValue == "ok")
        // The restarted dashboard has a new CSRF token: the page picked it up on reconnecting, so its buttons still work.
        try await browser.evaluate("location.hash = '#/batch/\(run.trip)'")
        _ = try await browser.waitFor("the Send button", #"document.querySelector('#batch button[data-control="send"]') !== null"#)
        _ = try await browser.waitFor("the new CSRF token read", "document.documentElement.dataset.csrfSnapshot === document.documentElement.dataset.snapshots")
        try await browser.evaluate(#"document.querySelector('#batch button[data-control="send"]').click()"#)
        #expect(try await browser.waitFor("the send control sent", "document.documentElement.dataset.lastControl !== 'retry:\(run.flakyFile)' ? document.documentElement.dataset.lastControl : ''").stringValue == "send:")

        dashboard.signal(SIGTERM)
        readOnly.signal(SIGTERM)
        worker.signal(SIGTERM)
        #expect(await dashboard.waitForExit(timeout: .seconds(10)) == 0)
        #expect(await readOnly.waitForExit(timeout: .seconds(10)) == 0)
        _ = await worker.waitForExit(timeout: .seconds(30))
    }
}
