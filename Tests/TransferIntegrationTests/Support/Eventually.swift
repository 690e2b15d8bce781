/// Polls `condition` every 20 ms until it holds or `timeout` passes, and says whether it held.
///
/// Only for state a real server reaches without telling the test (a connection it saw end, a stall it entered);
/// everything the engine reports is awaited through its events instead.
func eventually(within timeout: Duration = .seconds(15), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
