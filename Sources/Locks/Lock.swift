#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that threads take turns with, behind a mutex that waits well when they contend.
///
/// Swift's `Mutex` on Linux is a priority-inheriting futex: a contended unlock hands the lock to a sleeping waiter
/// through the kernel, so two threads trading a busy lock wake each other on every turn — a lock convoy. The
/// changelog writer's lock, taken by the intake lanes, the producer's delivery thread and the store queue, made half
/// of a worker's thread wake-ups at full intake that way (35,043 wake-ups for 50,000 refused jobs, 17,400 of them
/// handing this one lock over; 10,399 in all behind this lock). glibc's adaptive mutex spins briefly before it
/// sleeps, and an unlock lets whichever thread comes next take the lock: a critical section of a few hundred
/// nanoseconds is waited out on the CPU instead of in the scheduler.
///
/// Copies share one lock. Hold it briefly and never across a suspension point or a blocking call.
public struct Lock<Value>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    public init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with the value, the lock held.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withLock(body)
    }

    /// The value and its mutex in one allocation, so the mutex never moves once initialised.
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                #if canImport(Glibc)
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
                #endif
                pthread_mutex_init(mutex, &attributes)
                pthread_mutexattr_destroy(&attributes)
            }
            return storage
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }

        @inlinable @inline(__always)
        func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
            try withUnsafeMutablePointers { value, mutex throws(Failure) -> Result in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }
    }
}
