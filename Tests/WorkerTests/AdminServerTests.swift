import Foundation
import HTTPTransport
import Synchronization
import Testing
@testable import Worker

/// A started admin server on an ephemeral loopback port, with the health and metrics it reports.
private struct AdminFixture {
    let health = WorkerHealth()
    let metrics: MetricsRegistry
    let server: AdminServer
    let client: HTTPClient

    init(metrics: MetricsRegistry = MetricsRegistry(), beforeScrape: (@Sendable () -> Void)? = nil) throws {
        self.metrics = metrics
        server = try AdminServer(listen: "127.0.0.1:0", health: health, metrics: metrics, beforeScrape: beforeScrape)
        client = try HTTPClient()
    }

    func request(_ path: String, method: String = "GET") async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: method, url: server.baseURL + path, timeout: .seconds(30)))
    }
}

private extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

@Suite struct AdminServerTests {
    @Test func healthzIsOkWhileTheWorkerIsLive() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()

        let answer = try await admin.request("/healthz")

        #expect(answer.status == 200)
        #expect(answer.text == "ok\n")
        #expect(answer.header("content-type") == "text/plain; charset=utf-8")
    }

    @Test func healthzFailsUntilTheWorkerIsLive() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }

        let answer = try await admin.request("/healthz")

        #expect(answer.status == 503)
        #expect(answer.text == "starting\n")
    }

    @Test func healthzTurns503ForGoodAfterAFatalError() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()
        let before = try await admin.request("/healthz")

        admin.health.markFailed(reason: "kafka: fatal idempotent producer error")
        admin.health.markLive()
        let after = try await admin.request("/healthz")

        #expect(before.status == 200)
        #expect(after.status == 503)
        #expect(after.text == "failed: kafka: fatal idempotent producer error\n")
    }

    @Test func readyzFollowsReadinessBothWays() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()

        let initially = try await admin.request("/readyz")
        admin.health.markReady(true)
        let ready = try await admin.request("/readyz")
        admin.health.markReady(false, reason: "no partitions assigned")
        let revoked = try await admin.request("/readyz")
        admin.health.markReady(true)
        let again = try await admin.request("/readyz")

        #expect(initially.status == 503)
        #expect(ready.status == 200)
        #expect(ready.text == "ok\n")
        #expect(revoked.status == 503)
        #expect(revoked.text == "no partitions assigned\n")
        #expect(again.status == 200)
    }

    @Test func readyzFailsAfterAFatalErrorEvenWhenMarkedReady() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()
        admin.health.markReady(true)

        admin.health.markFailed(reason: "broker gone")
        let answer = try await admin.request("/readyz")

        #expect(answer.status == 503)
        #expect(answer.text == "failed: broker gone\n")
    }

    @Test func metricsServesThePrometheusTextOfTheRegistry() async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.metrics.declare("attache_test_total", .counter, help: "A test counter.", labels: ["outcome": ["uploaded"]])
        admin.metrics.increment("attache_test_total", by: 3, labels: ["outcome": "uploaded"])

        let answer = try await admin.request("/metrics")

        #expect(answer.status == 200)
        #expect(answer.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.text == admin.metrics.render())
        #expect(answer.text.contains("attache_test_total{outcome=\"uploaded\"} 3\n"))
    }

    @Test func metricsAreRefreshedRightBeforeEachScrape() async throws {
        let scrapes = Atomic<Int>(0)
        let metrics = MetricsRegistry()
        metrics.declare("attache_test_lag", .gauge, help: "A gauge refreshed on scrape.")
        let admin = try AdminFixture(metrics: metrics) {
            let count = scrapes.add(1, ordering: .relaxed).newValue
            metrics.set("attache_test_lag", Double(count * 10))
        }
        defer { admin.server.stop() }

        let first = try await admin.request("/metrics")
        let second = try await admin.request("/metrics")

        #expect(first.text.contains("attache_test_lag 10\n"))
        #expect(second.text.contains("attache_test_lag 20\n"))
        #expect(scrapes.load(ordering: .relaxed) == 2)
    }

    @Test func healthChecksDoNotRefreshMetrics() async throws {
        let scrapes = Atomic<Int>(0)
        let admin = try AdminFixture { scrapes.add(1, ordering: .relaxed) }
        defer { admin.server.stop() }

        _ = try await admin.request("/healthz")
        _ = try await admin.request("/readyz")

        #expect(scrapes.load(ordering: .relaxed) == 0)
    }

    @Test(arguments: ["/healthz", "/metrics"])
    func headAnswersLikeGetWithoutABody(path: String) async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()
        admin.metrics.declare("attache_test_total", .counter, help: "A test counter.")

        let get = try await admin.request(path)
        let head = try await admin.request(path, method: "HEAD")

        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("content-type") == get.header("content-type"))
        #expect(head.header("content-length") == String(get.body.count))
    }

    @Test(arguments: ["/", "/health", "/healthz/", "/metrics/x", "/READYZ"])
    func otherPathsAre404(path: String) async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()

        let answer = try await admin.request(path)

        #expect(answer.status == 404)
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func methodsOtherThanGetAndHeadAre405(method: String) async throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        admin.health.markLive()

        let answer = try await admin.request("/healthz", method: method)

        #expect(answer.status == 405)
        #expect(answer.header("allow") == "GET, HEAD")
    }

    @Test func serverReportsTheAddressItListensOn() throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }

        #expect(admin.server.listen == "127.0.0.1:0")
        #expect(admin.server.host == "127.0.0.1")
        #expect(admin.server.port != 0)
        #expect(admin.server.baseURL == "http://127.0.0.1:\(admin.server.port)")
    }

    @Test func portInUseIsAnErrorNamingAdminListen() throws {
        let admin = try AdminFixture()
        defer { admin.server.stop() }
        let busy = "127.0.0.1:\(admin.server.port)"

        let error = try #require(throws: AdminServerError.self) {
            try AdminServer(listen: busy, health: WorkerHealth(), metrics: MetricsRegistry())
        }

        #expect(error.code == .addressInUse)
        #expect(error.listen == busy)
        #expect(error.description.contains("admin.listen \(busy)"))
        #expect(error.description.contains("already in use"))
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.1:http", ":9464", "example.com:9464", "127.0.0.1:70000"])
    func malformedListenIsRefused(listen: String) throws {
        let error = try #require(throws: AdminServerError.self) {
            try AdminServer(listen: listen, health: WorkerHealth(), metrics: MetricsRegistry())
        }

        #expect(error.code == .invalidListen)
        #expect(error.description.contains("admin.listen \(listen)"))
    }
}
