import Testing

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

/// Awaits `operation` for at most `timeout` and returns its value: how a test awaits anything that only ends when
/// the code under test does its part (a record let go, a gate a fake opens, a stream's next element, a task's
/// value). When `timeout` passes first it records an issue naming `what` at the caller's line and returns nil; the
/// operation is cancelled and left behind, so a wait that cannot be cancelled (a continuation nobody resumes) fails
/// the test instead of hanging the run.
@discardableResult
public func waitFor<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async -> T
) async -> T? {
    let first = await withTimeout(timeout, operation)
    if first == nil { Issue.record("timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation) }
    return first
}

/// `operation`'s value, or nil when `timeout` passes first (the operation is then cancelled and left behind): the
/// wait `waitFor` makes, for a caller to whom running out of time is an answer rather than a failure.
public func withTimeout<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let answer = Locked<CheckedContinuation<T?, Never>?>(continuation)
        let resume = { @Sendable (value: T?) in
            answer.update { pending -> CheckedContinuation<T?, Never>? in
                defer { pending = nil }
                return pending
            }?.resume(returning: value)
        }
        let timer = Locked<Task<Void, Never>?>(nil)
        let work = Task {
            resume(await operation())
            timer.value?.cancel()
        }
        timer.update { timer in
            timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                work.cancel()
                resume(nil)
            }
        }
        // Ended before its timer was kept: nothing is left to time.
        if answer.value == nil { timer.value?.cancel() }
    }
}
