/// The outcome of one health check (`/healthz` or `/readyz`): passing, or failing with a reason for people.
public struct HealthCheck: Sendable, Hashable {
    /// Whether the check passes.
    public var isPassing: Bool
    /// Why the check fails; nil while it passes.
    public var reason: String?

    /// A passing check.
    public static let passing = HealthCheck(isPassing: true, reason: nil)

    /// A failing check with its reason.
    public static func failing(_ reason: String) -> HealthCheck {
        HealthCheck(isPassing: false, reason: reason)
    }
}
