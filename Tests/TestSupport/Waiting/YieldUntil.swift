import Testing

/// Yields until `condition` holds: for state another task reaches without a signal to await (a queued waiter). Like
/// every wait of a test it has a deadline: when `timeout` passes first, it records an issue at the caller's line and
/// returns, so a broken condition fails the test instead of hanging the run.
public func yieldUntil(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
                       _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition did not hold within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        await Task.yield()
    }
}
