import Synchronization

/// A value behind a lock that closures can capture (a `Mutex` itself cannot be captured by escaping closures).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A lock around `value`.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// The value now.
    public var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock.
    public func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
