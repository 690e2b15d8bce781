/// Who may use the dashboard besides a browser on its own machine (DESIGN §10): the `Host` names it answers to and
/// the token every request must carry.
public struct DashboardAccess: Sendable, Hashable {
    /// Host names the dashboard answers to besides its listen address and loopback (`dashboard.allowedHosts`): an
    /// entry without a port admits the name on any port, one with a port only `name:port`.
    public var allowedHosts: [String]
    /// The token every request needs (`--token`, `dashboard.token`); nil: none.
    public var token: String?

    /// Loopback only, no token, unless told otherwise.
    public init(allowedHosts: [String] = [], token: String? = nil) {
        self.allowedHosts = allowedHosts
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }
}
