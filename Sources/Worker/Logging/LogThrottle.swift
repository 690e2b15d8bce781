import Synchronization

/// Lets one line per key through per window and counts the rest, so a burst of the same condition (a broker
/// restarting makes librdkafka report every lost connection) is one line with a count, not dozens a second.
///
/// Keys must come from a closed set (error codes), since one entry is kept per key.
final class LogThrottle: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var suppressed: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    private let interval: Duration

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Whether a line for `key` goes out now, and how many were held back since the last one that did.
    func admit(_ key: String, now: ContinuousClock.Instant = .now) -> (admitted: Bool, suppressed: Int) {
        windows.withLock { windows in
            if var window = windows[key], now - window.start < interval {
                window.suppressed += 1
                windows[key] = window
                return (false, 0)
            }
            let suppressed = windows[key]?.suppressed ?? 0
            windows[key] = Window(start: now, suppressed: 0)
            return (true, suppressed)
        }
    }
}
