import EmbeddedHTTP

/// The `Host` names the dashboard answers to, so that a page on another site cannot reach it through DNS
/// rebinding (a name of the attacker's that resolves to 127.0.0.1 carries that name in `Host`): its listen address,
/// `localhost`, `127.0.0.1` and `[::1]` with its port, and the `dashboard.allowedHosts` entries.
///
/// A `Host` without a port means port 80, as a browser writes it for `http://name/`.
struct HostAllowList: Sendable {
    private let port: UInt16
    private let local: Set<String>
    private let allowed: [HTTPHost]

    /// The names for a server listening on `listenHosts` (as configured and as bound) at `port`. Entries of
    /// `allowedHosts` that do not parse were refused by the configuration's check and are ignored here.
    init(listenHosts: [String], port: UInt16, allowedHosts: [String]) {
        self.port = port
        let listened = listenHosts.compactMap { host in HTTPHost(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)?.name }
        local = Set(["localhost", "127.0.0.1", "[::1]"] + listened)
        allowed = allowedHosts.compactMap(HTTPHost.init)
    }

    /// Whether a request with this `Host` header is answered; a missing or malformed one never is.
    func admits(_ header: String?) -> Bool {
        guard let header, let host = HTTPHost(header) else { return false }
        if local.contains(host.name), (host.port ?? 80) == port { return true }
        return allowed.contains { $0.name == host.name && ($0.port == nil || $0.port == host.port) }
    }
}
