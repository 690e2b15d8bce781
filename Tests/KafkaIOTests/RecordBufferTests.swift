import Foundation
import Synchronization
import Testing

@testable import KafkaIO

/// The hand-over buffer's marks: throttled at the high mark, drained (and the poll thread released) at half.
@Suite struct RecordBufferTests {
    private static func records(_ count: Int, from start: Int64 = 0) -> [KafkaRecord] {
        (0..<count).map { KafkaRecord(topic: "t", partition: 0, offset: start + Int64($0), key: nil, value: Data([1]), headers: [],
                                timestampMilliseconds: nil) }
    }

    @Test func theBufferThrottlesAtItsHighMarkAndDrainsAtHalf() async {
        let drains = Atomic<Int>(0)
        let buffer = RecordBuffer(highMark: 8) { drains.add(1, ordering: .relaxed) }
        buffer.push(Self.records(7))
        #expect(!buffer.isThrottled)
        buffer.push(Self.records(3, from: 7))
        #expect(buffer.isThrottled)
        _ = await buffer.nextBatch(maximum: 5)
        #expect(buffer.isThrottled, "5 left: above the low mark of 4")
        #expect(drains.load(ordering: .relaxed) == 0)
        _ = await buffer.nextBatch(maximum: 1)
        #expect(!buffer.isThrottled)
        #expect(drains.load(ordering: .relaxed) == 1)
    }

    @Test func aDrainReleasesThePollThreadsWait() async {
        let buffer = RecordBuffer(highMark: 4) {}
        buffer.push(Self.records(4))
        _ = await buffer.nextBatch(maximum: 4)
        let started = ContinuousClock.now
        buffer.waitForDrain(upTo: .seconds(30))
        #expect(started.duration(to: .now) < .seconds(10), "the drain signalled the wait; it must not sit out its timeout")
    }

    @Test func aCommandInterruptsThePollThreadsWait() {
        let buffer = RecordBuffer(highMark: 4) {}
        buffer.push(Self.records(4))
        buffer.interruptWait()
        let started = ContinuousClock.now
        buffer.waitForDrain(upTo: .seconds(30))
        #expect(started.duration(to: .now) < .seconds(10))
    }
}
