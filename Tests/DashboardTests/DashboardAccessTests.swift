@testable import Dashboard
import Foundation
import Testing
import TestSupport

/// The dashboard trusts no one (DESIGN §10): a `Host` it answers to on every route, the token when it has one, and
/// the page's CSRF token on controls — on a real server on loopback, driven by the curl CLI.
@Suite struct DashboardAccessTests {
    private static let routes: [(method: String, path: String)] = [
        ("GET", "/"), ("GET", "/index.html"), ("GET", "/app.js"), ("GET", "/app.css"), ("GET", "/favicon.ico"), ("GET", "/healthz"),
        ("GET", "/events"), ("GET", "/api/snapshot"), ("GET", "/api/feed"), ("GET", "/api/batches/b"), ("POST", "/api/control"),
        ("GET", "/nothing"),
    ]

    private func server(controls: Bool = true, access: DashboardAccess = DashboardAccess(),
                        sink: DashboardServerTests.RecordingSink = .init()) throws -> DashboardServer {
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 10), controls: controls)
        hub.apply { $0.take(event: EventRecords.failed("b", "f", code: "ERR_S3_UPLOAD_FAILED", attempt: 3, willRetry: false), readAt: Date()) }
        return try DashboardServer(host: "127.0.0.1", port: 0, hub: hub, controls: sink, access: access)
    }

    /// One request with `headers`. The event stream is cut after a second (it would not end by itself); any other
    /// route gets ten, as a loaded machine can take more than a second to answer a request that does end.
    private func request(_ server: DashboardServer, _ path: String, method: String = "GET", headers: [String] = [],
                         body: String? = nil) async throws -> Curl.Result {
        let limit = path == "/events" ? "1" : "10"
        var arguments = ["-X", method, "--max-time", limit] + headers.flatMap { ["-H", $0] }
        if let body { arguments += ["--data-binary", body] }
        return try await Curl.run(arguments + ["\(server.baseURL)\(path)"])
    }

    @Test func aForeignHostIsMisdirectedOnEveryRoute() async throws {
        let server = try server(access: DashboardAccess(allowedHosts: ["dash.example.com"]))
        defer { server.stop() }
        for host in ["evil.example:\(server.port)", "attacker.example", "127.0.0.1.evil.example:\(server.port)", "dash.example.com.evil:80"] {
            for route in Self.routes {
                let answer = try await request(server, route.path, method: route.method, headers: ["Host: \(host)", "Content-Type: application/json"],
                                               body: route.method == "POST" ? #"{"kind":"retry","batchId":"b","fileId":"f"}"# : nil)
                #expect(answer.status == 421, "\(route.method) \(route.path) with Host \(host)")
                #expect(!answer.bodyText.contains("snapshot"))
            }
        }
        let noHost = try await Curl.run(["--http1.0", "-H", "Host:", "\(server.baseURL)/"])
        #expect(noHost.status == 421, "a request without Host is answered by no one")
    }

    @Test func itsOwnAddressLoopbackNamesAndAllowedHostsAreAnswered() async throws {
        let server = try server(access: DashboardAccess(allowedHosts: ["dash.example.com", "proxy.internal:8443", "[::1]:9999"]))
        defer { server.stop() }
        let port = server.port
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)", "[0:0:0:0:0:0:0:1]:\(port)",
                     "dash.example.com", "Dash.Example.com:443", "proxy.internal:8443", "[::1]:9999"] {
            #expect(try await request(server, "/api/feed", headers: ["Host: \(host)"]).status == 200, "Host \(host)")
        }
        for host in ["localhost:\(port &+ 1)", "localhost", "proxy.internal", "proxy.internal:8444", "dash.example.com:x"] {
            #expect(try await request(server, "/api/feed", headers: ["Host: \(host)"]).status == 421, "Host \(host)")
        }
    }

    @Test func withATokenEveryRequestNeedsIt() async throws {
        let token = "s3cret-Token/+="
        let server = try server(access: DashboardAccess(token: token))
        defer { server.stop() }
        for route in Self.routes where route.method == "GET" {
            let refused = try await request(server, route.path)
            #expect(refused.status == 401, "\(route.path) without the token")
            #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        }
        #expect(try await request(server, "/api/feed", headers: ["Authorization: Bearer \(token)"]).status == 200)
        #expect(try await request(server, "/api/feed", headers: ["Authorization: bearer \(token)"]).status == 200)
        #expect(try await request(server, "/api/feed", headers: ["Authorization: Bearer \(token)x"]).status == 401)
        #expect(try await request(server, "/api/feed", headers: ["Authorization: Bearer s3cret-Token/+"]).status == 401)
        #expect(try await request(server, "/api/feed", headers: ["Authorization: Basic \(token)"]).status == 401)
        let stream = try await request(server, "/events", headers: ["Authorization: Bearer \(token)"])
        #expect(stream.bodyText.contains("event: snapshot"))
        let foreign = try await request(server, "/api/feed", headers: ["Authorization: Bearer \(token)", "Host: evil.example"])
        #expect(foreign.status == 421, "the token does not make a foreign Host right")
    }

    @Test func openingTheTokenLinkSetsAStrictCookieAndLeavesTheAddressBar() async throws {
        let token = "s3cret-Token/+="
        let server = try server(access: DashboardAccess(token: token))
        defer { server.stop() }
        let link = try await request(server, "/?token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(link.status == 303 && link.headers["location"] == "/")
        let cookie = try #require(link.headers["set-cookie"])
        let attributes = Set(cookie.split(separator: ";").dropFirst().map { String($0).trimmingCharacters(in: .whitespaces) })
        #expect(attributes == ["Path=/", "HttpOnly", "SameSite=Strict"])
        let pair = String(cookie.split(separator: ";")[0])
        #expect(!pair.contains(token), "the cookie carries the token percent-encoded")
        #expect(pair.hasPrefix("attache-dashboard-\(server.port)="), "named for the port, as cookies do not tell ports apart")
        for path in ["/", "/app.js", "/api/snapshot", "/api/batches/b"] {
            #expect(try await request(server, path, headers: ["Cookie: theme=dark; \(pair)"]).status == 200, "\(path)")
        }
        #expect(try await request(server, "/events", headers: ["Cookie: \(pair)"]).bodyText.contains("event: snapshot"))
        #expect(try await request(server, "/", headers: ["Cookie: \(pair)x"]).status == 401)
        let wrong = try await request(server, "/?token=guess")
        #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
    }

    @Test func theTokenIsComparedInConstantTimeAndOnlyWhole() {
        let token = AccessToken("abc", port: 9470)
        #expect(token?.matches("abc") == true)
        #expect(token?.matches("abd") == false)
        #expect(token?.matches("ab") == false)
        #expect(token?.matches("abcd") == false)
        #expect(AccessToken("", port: 9470) == nil && AccessToken(nil, port: 9470) == nil, "an empty token is no token")
    }

    @Test func controlsNeedThePagesCSRFToken() async throws {
        let sink = DashboardServerTests.RecordingSink()
        let server = try server(sink: sink)
        defer { server.stop() }
        let other = try self.server()
        defer { other.stop() }
        let page = try await request(server, "/")
        let csrf = server.csrfToken
        #expect(csrf.count == 64 && csrf != other.csrfToken, "random for each dashboard")
        #expect(page.bodyText.contains(#"<meta name="attache-csrf" content="\#(csrf)">"#))
        let body = #"{"kind":"retry","batchId":"b","fileId":"f"}"#
        for headers in [[], ["X-Attache-CSRF: \(other.csrfToken)"], ["X-Attache-CSRF: \(csrf.dropLast())"]] {
            let refused = try await request(server, "/api/control", method: "POST", headers: ["Content-Type: application/json"] + headers, body: body)
            #expect(refused.status == 403 && refused.bodyText.contains("CSRF"), "\(headers)")
        }
        #expect(sink.records.withLock { $0.isEmpty })
        let taken = try await request(server, "/api/control", method: "POST", headers: ["Content-Type: application/json", "X-Attache-CSRF: \(csrf)",
                                                                                 "Origin: \(server.baseURL)"], body: body)
        #expect(taken.status == 200)
        #expect(sink.records.withLock { $0.map(\.kind) } == [.retry])
        let crossSite = try await request(server, "/api/control", method: "POST", headers: ["Content-Type: application/json", "X-Attache-CSRF: \(csrf)",
                                                                                     "Origin: http://evil.example"], body: body)
        #expect(crossSite.status == 403, "the Origin check stays")
    }
}
