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
    private var stalled = 0

    /// Blocks the calling (connection) thread until released, closed, or `deadline` passes; a `stall` counts in
    /// `stalledCount` while it waits. Returns true when woken by a release or close rather than by the deadline.
    @discardableResult
    func wait(until deadline: Date?, stall: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stall { stalled += 1 }
        defer { if stall { stalled -= 1 } }
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

    /// How many stalls are waiting right now.
    var stalledCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return stalled
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
