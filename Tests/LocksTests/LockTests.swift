import Dispatch
import Locks
import Testing

struct LockTests {
    @Test("threads taking turns lose no update: 8 threads × 20,000 increments of a value and a dictionary")
    func mutualExclusion() {
        let lock = Lock((count: 0, perThread: [Int: Int]()))
        let threads = 8
        let rounds = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for _ in 0..<rounds {
                lock.withLock { state in
                    // Read, then write: an update made without the lock would be lost between the two.
                    let seen = state.count
                    state.perThread[thread, default: 0] += 1
                    state.count = seen + 1
                }
            }
        }
        let state = lock.withLock { $0 }
        #expect(state.count == threads * rounds)
        #expect(state.perThread.count == threads)
        #expect(state.perThread.values.allSatisfy { $0 == rounds })
    }

    @Test("copies share one lock and one value")
    func copiesShare() {
        let lock = Lock([String]())
        let copy = lock
        copy.withLock { $0.append("from the copy") }
        #expect(lock.withLock { $0 } == ["from the copy"])
    }

    private struct Refused: Error, Equatable {}

    @Test("an error thrown inside keeps its type, keeps what was changed before it and leaves the lock free")
    func throwingBody() {
        let lock = Lock(0)
        #expect(throws: Refused.self) {
            try lock.withLock { (value: inout Int) throws(Refused) -> Void in
                value = 1
                throw Refused()
            }
        }
        // Taken again on the same thread: a lock left held would deadlock here.
        #expect(lock.withLock { $0 } == 1)
        let typed: Result<Int, Refused> = Result { () throws(Refused) -> Int in try lock.withLock { _ throws(Refused) in throw Refused() } }
        #expect(typed == .failure(Refused()))
    }

    @Test("the value is released with the last copy of the lock")
    func releasesValue() {
        final class Tracked: @unchecked Sendable {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        var released = false
        do {
            let lock = Lock(Tracked { released = true })
            lock.withLock { _ in }
            #expect(!released)
        }
        #expect(released)
    }
}
