import Synchronization

/// Passes staging progress on to a caller's callback: only with a known total, never going backwards, across
/// every attempt of one staging (the first URL and a re-signed one).
final class StagingProgress: Sendable {
    private let callback: (@Sendable (Int64, Int64) -> Void)?
    private let reported = Mutex<Int64>(-1)

    /// Reports to `callback`; nil reports nothing.
    init(_ callback: (@Sendable (Int64, Int64) -> Void)?) {
        self.callback = callback
    }

    /// Bytes received so far out of `total` (nil: unknown, nothing is reported).
    func update(_ received: Int64, of total: Int64?) {
        guard let callback, let total, total > 0 else { return }
        let value = min(received, total)
        let advanced = reported.withLock { last in
            guard value > last else { return false }
            last = value
            return true
        }
        if advanced { callback(value, total) }
    }
}
