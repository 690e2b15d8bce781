/// Waits (polling every few milliseconds, for at most `attempts` polls) until `condition` holds.
///
/// For integration tests that must act once a server thread has reached a state (a stall), never for timing.
func eventually(attempts: Int = 1000, _ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
