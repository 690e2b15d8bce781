import Foundation

/// Where stalled and throttled connection threads wait, and what wakes them.
///
/// `release()` wakes everything waiting now; `close()` also makes every later wait return at once, so a stopping
/// service can join its connection threads.
///
/// `@unchecked Sendable`: `generation` and `closed` are only read and written while holding `condition`.
final class StallGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var generation: UInt64 = 0
    private var closed = false

    /// Blocks the calling (connection) thread until released, closed, or `deadline` passes.
    /// Returns true when it was woken by a release or close rather than by the deadline.
    @discardableResult
    func wait(until deadline: Date?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let start = generation
        while !closed && generation == start {
            if let deadline {
                if !condition.wait(until: deadline) { return closed || generation != start }
            } else {
                condition.wait()
            }
        }
        return true
    }

    /// Wakes every thread waiting now.
    func release() {
        condition.lock()
        generation &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Wakes every thread waiting now and makes every later wait return immediately.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
