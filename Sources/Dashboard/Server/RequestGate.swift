import EmbeddedHTTP
import WireFormat

/// What every request to the dashboard passes before it is routed (DESIGN §10): a `Host` it answers to (421
/// otherwise), then — when the dashboard has a token — the token (401 otherwise). Opening `/?token=T` with the
/// right token sets the cookie and redirects to `/`, so the token leaves the address bar and the history.
struct RequestGate: Sendable {
    let hosts: HostAllowList
    let token: AccessToken?

    /// Nil when the request may be routed; otherwise the answer it gets instead.
    func refusal(of head: HTTPRequestHead) -> ServerResponse? {
        guard hosts.admits(head.header("host")) else {
            return Self.text(421, "misdirected request: this dashboard answers only to its own address, localhost, "
                             + "127.0.0.1, [::1] and the names in dashboard.allowedHosts\n")
        }
        guard let token else { return nil }
        if head.method == "GET", head.path == "/", let offered = head.queryValue("token") {
            guard token.matches(offered) else { return Self.unauthorized }
            return ServerResponse(status: 303, headers: [
                HTTPHeader("Location", "/"), token.setCookie, HTTPHeader("Cache-Control", "no-store"),
                HTTPHeader("Referrer-Policy", "no-referrer"),
            ])
        }
        return token.admits(head) ? nil : Self.unauthorized
    }

    private static var unauthorized: ServerResponse {
        var response = text(401, "this dashboard needs its token: open /?token=… once in this browser, "
                            + "or send Authorization: Bearer …\n")
        response.headers.append(HTTPHeader("WWW-Authenticate", #"Bearer realm="attache-dashboard""#))
        return response
    }

    private static func text(_ status: Int, _ message: String) -> ServerResponse {
        .text(status, message, headers: [HTTPHeader("Cache-Control", "no-store")])
    }
}
