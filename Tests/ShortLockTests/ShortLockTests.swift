import Dispatch
import Foundation
import Testing

@testable import ShortLockModule

/// The lock on real threads: what it must do is keep two threads out of each other's way and wake a sleeper, which a
/// fake clock cannot show.
@Suite struct ShortLockTests {
    /// Two counters that every holder moves together: a holder that ever saw them differ shared the lock with another.
    private struct Pair {
        var first = 0
        var second = 0
        var torn = 0
    }

    @Test func threadsTakingItAtOnceNeverOverlap() {
        let lock = ShortLock(Pair())
        let threads = 4
        let rounds = 250_000
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                for _ in 0..<rounds {
                    lock.withLock { pair in
                        if pair.first != pair.second { pair.torn += 1 }
                        pair.first += 1
                        // A store the other threads could see half-done if they got in between.
                        pair.second = pair.first
                    }
                }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        let pair = lock.withLock { $0 }
        #expect(pair.first == threads * rounds)
        #expect(pair.second == threads * rounds)
        #expect(pair.torn == 0)
        #expect(!lock.hasSleepers)
    }

    @Test func aTakerThatFindsItHeldSleepsUntilTheUnlockWakesIt() throws {
        let lock = ShortLock(0)
        let finished = DispatchSemaphore(value: 0)
        let sleeperSawHeld = lock.withLock { value -> Bool in
            Thread.detachNewThread {
                lock.withLock { $0 += 1 }
                finished.signal()
            }
            // The taker spins a few dozen pauses, then marks the word and sleeps; wait for the mark.
            let deadline = Date().addingTimeInterval(30)
            while !lock.hasSleepers && Date() < deadline { sched_yield() }
            return lock.hasSleepers && value == 0
        }
        #expect(sleeperSawHeld, "the other thread never went to sleep on the held lock")
        #expect(finished.wait(timeout: .now() + 30) == .success, "the unlock did not wake the sleeper")
        #expect(lock.withLock { $0 } == 1)
        #expect(!lock.hasSleepers)
    }

    @Test func anErrorThrownInsideLeavesItFree() {
        struct Refusal: Error {}
        let lock = ShortLock(1)
        #expect(throws: Refusal.self) { try lock.withLock { (value: inout Int) throws(Refusal) in
            value = 2
            throw Refusal()
        } }
        #expect(lock.withLock { $0 } == 2)
    }
}
