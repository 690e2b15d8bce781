/// Why `eventually` gave up: what it waited for, which never came.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    /// What the test waited for.
    public let what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` every `interval` until it gives a value, and returns it; throws `EventuallyTimeout` naming
/// `what` when `timeout` passes first.
///
/// Only for state a real server or process reaches without telling the test (a connection it saw end, a stall it
/// entered, a record a child process wrote); everything the engine reports is awaited through its events instead.
/// The defaults suit conditions that cost something to check (running `kcat`); cheap reads use
/// `eventually(within:every:_:)`.
public func eventually<T>(
    _ what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(250),
    _ condition: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await condition() { return value }
        guard ContinuousClock.now < deadline else { throw EventuallyTimeout(what: what) }
        try await Task.sleep(for: interval)
    }
}

/// Whether `condition` held within `timeout`, polled every `interval`: `#expect(await eventually { … })`.
///
/// The timeout is wall-clock time and only runs out when something is wrong; it is generous because two cores
/// running every suite at once (and perhaps a build beside them) can hold a server thread back for seconds.
public func eventually(
    within timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(20), _ condition: () -> Bool
) async -> Bool {
    let held = try? await eventually("the condition", timeout: timeout, every: interval) { condition() ? true : nil }
    return held ?? false
}
