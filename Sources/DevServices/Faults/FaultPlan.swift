import Foundation
import Synchronization

/// The faults a service shows, switchable at runtime from any thread (tests, the demo).
///
/// A rule is a fault, a target and a number of times it fires (nil: until removed). When a request or file
/// matches several rules of one kind, the earliest added fires. Every firing is recorded.
public final class FaultPlan: Sendable {
    private struct Rule {
        var id: FaultRuleID
        var fault: Fault
        var target: FaultTarget
        var remaining: Int?
    }

    private struct State {
        var rules: [Rule] = []
        var nextID = 0
        var firings: [FaultFiring] = []
    }

    private let state = Mutex(State())
    /// Where this plan's stalled and throttled requests wait.
    let gate = StallGate()

    /// An empty plan: the service behaves.
    public init() {}

    /// Adds a fault for `target`, firing `times` times (nil: until removed or cleared).
    @discardableResult
    public func inject(_ fault: Fault, target: FaultTarget = .everything, times: Int? = nil) -> FaultRuleID {
        precondition(times.map { $0 > 0 } ?? true, "a fault fires at least once")
        return state.withLock { state in
            let id = FaultRuleID(value: state.nextID)
            state.nextID += 1
            state.rules.append(Rule(id: id, fault: fault, target: target, remaining: times))
            return id
        }
    }

    /// Removes one rule; its stalls keep waiting until released.
    public func remove(_ id: FaultRuleID) {
        state.withLock { $0.rules.removeAll { $0.id == id } }
    }

    /// Removes every rule and releases every stalled request. The record of firings is kept.
    public func clear() {
        state.withLock { $0.rules.removeAll() }
        gate.release()
    }

    /// Lets every request stalled right now carry on; a stall that starts later waits for the next release.
    public func releaseStalls() {
        gate.release()
    }

    /// How many requests are stalled right now (waiting on a `stall` fault).
    public var stalledRequests: Int {
        gate.stalledCount
    }

    /// Every firing so far, in order.
    public var firings: [FaultFiring] {
        state.withLock { $0.firings }
    }

    /// How many times faults of `kind` have fired.
    public func firingCount(_ kind: Fault.Kind) -> Int {
        state.withLock { $0.firings.count { $0.fault.kind == kind } }
    }

    /// Takes the faults of `kinds` that apply to this request or file (at most one per kind), counting them down
    /// and recording them as fired.
    func claim(_ kinds: Set<Fault.Kind>, path: String, fileId: String?) -> [Fault] {
        state.withLock { state in
            var claimed: [Fault] = []
            var claimedKinds: Set<Fault.Kind> = []
            for index in state.rules.indices {
                let rule = state.rules[index]
                guard kinds.contains(rule.fault.kind), !claimedKinds.contains(rule.fault.kind),
                      rule.target.matches(path: path, fileId: fileId)
                else { continue }
                claimedKinds.insert(rule.fault.kind)
                claimed.append(rule.fault)
                state.rules[index].remaining = rule.remaining.map { $0 - 1 }
                state.firings.append(FaultFiring(fault: rule.fault, path: path, fileId: fileId))
            }
            state.rules.removeAll { $0.remaining == 0 }
            return claimed
        }
    }

    /// Ends every stall for good: called by a stopping service before it joins its connection threads.
    func shutDown() {
        gate.close()
    }
}
