import CLinux

/// A lock for state that several threads touch for a moment each, many times a job: the changelog writer's table,
/// which the intake lanes, the snapshot and store queues and the producer's delivery thread all take.
///
/// `Synchronization.Mutex` on Linux spins 1,000 `pause`s before it sleeps (tens of microseconds, all of it wasted when
/// the holder was preempted, as it often is with more busy threads than cores), then sleeps on a
/// priority-inheritance futex, so every contended acquisition went through the kernel's rt_mutex. With `Mutex` on
/// that table, at full intake, `Mutex`'s spin and the worker's futex calls took 5–8 % of its samples. This lock
/// spins a few dozen `pause`s, then sleeps on a plain futex, which its unlock wakes only when someone sleeps on it:
/// with it, 2 %.
///
/// A class, not a struct like `Mutex`: the futex word needs an address that does not move.
public final class ShortLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between attache_short_lock and attache_short_unlock.
    @usableFromInline let word: UnsafeMutablePointer<UInt32>
    /// Exclusive by the lock, not by Swift's dynamic checks, which would cost a call on every access.
    @exclusivity(unchecked) @usableFromInline var value: Value

    public init(_ value: Value) {
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
        self.value = value
    }

    deinit {
        word.deallocate()
    }

    /// Whether a thread sleeps waiting for the lock, or is about to: the next unlock wakes one.
    var hasSleepers: Bool { attache_short_lock_has_sleepers(word) != 0 }

    /// Runs `body` with the value, holding the lock. `body` must be short and must not take this lock again.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        attache_short_lock(word)
        defer { attache_short_unlock(word) }
        return try body(&value)
    }
}
