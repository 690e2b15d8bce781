import Foundation

/// The engine's sense of time: wall-clock instants (presigned URLs expire at wall-clock times) and sleeping.
///
/// Tests use a manual clock that only moves when told, so stalls, expiry and backoff are checked without waiting.
public protocol EngineClock: Sendable {
    func now() -> Date
    /// Returns at `deadline` (at once if it has passed); throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The real clock.
public struct SystemClock: EngineClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
        try Task.checkCancellation()
    }
}

extension Date {
    /// This instant moved by a `Duration`.
    public static func + (lhs: Date, rhs: Duration) -> Date {
        lhs.addingTimeInterval(rhs.timeInterval)
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    public var timeInterval: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
