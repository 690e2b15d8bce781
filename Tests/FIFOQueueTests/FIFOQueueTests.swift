import Testing
@testable import FIFOQueueModule

/// The one queue: order kept across pops and compactions, a burst's storage given back once emptied.
@Suite struct FIFOQueueTests {
    @Test func elementsLeaveInTheOrderTheyCameAcrossCompactions() {
        var queue = FIFOQueue<Int>()
        var expected = 0
        for round in 0..<50 {
            queue.append(contentsOf: (round * 100)..<(round * 100 + 100))
            for _ in 0..<60 {
                #expect(queue.popFirst() == expected)
                expected += 1
            }
        }
        #expect(queue.count == 50 * 40)
        #expect(queue.first == expected && queue[1] == expected + 1)
        #expect(queue.popFirst(3) == [expected, expected + 1, expected + 2])
        #expect(queue.popFirst(1_000_000).count == 50 * 40 - 3)
        #expect(queue.isEmpty && queue.popFirst() == nil && queue.popFirst(5).isEmpty)
    }

    @Test func anEmptiedQueueGivesALargeStorageBackAndKeepsASmallOne() {
        var large = FIFOQueue<Int>()
        large.append(contentsOf: 0..<100_000)
        large.dropFirst(100_000)
        #expect(large.isEmpty && large.elements.isEmpty)
        large.append(7)
        #expect(large.popFirst() == 7)

        var small = FIFOQueue<Int>()
        small.append(contentsOf: 0..<10)
        small.removeAll()
        #expect(small.count == 0)
    }

    @Test func removingByPredicateKeepsTheRestInOrderAndEqualityIsOfContents() {
        var queue = FIFOQueue<Int>()
        queue.append(contentsOf: 0..<10)
        _ = queue.popFirst(2)
        queue.removeAll { $0 % 2 == 1 }
        #expect(Array(queue.elements) == [2, 4, 6, 8])
        var other = FIFOQueue<Int>()
        other.append(contentsOf: [2, 4, 6, 8])
        #expect(queue == other && queue.hashValue == other.hashValue, "the same elements, whatever was popped before")
        queue[0] = 3
        #expect(queue != other)
    }

    @Test func prependPutsAnElementBeforeTheOthers() {
        var queue = FIFOQueue<Int>()
        queue.prepend(1)
        queue.append(2)
        queue.append(3)
        _ = queue.popFirst()
        queue.prepend(9)
        queue.prepend(8)
        #expect(Array(queue.elements) == [8, 9, 2, 3])
    }

    /// Inserting and removing anywhere, past compactions, does what an array would: a seeded random run against one.
    @Test func insertAndRemoveAnywhereMatchAnArray() {
        var queue = FIFOQueue<Int>()
        var model: [Int] = []
        var random = SplitMix(seed: 7)
        var next = 0
        for _ in 0..<4_000 {
            switch random.next() % 5 {
            case 0, 1:
                let position = model.isEmpty ? 0 : Int(random.next() % UInt64(model.count + 1))
                queue.insert(next, at: position)
                model.insert(next, at: position)
                next += 1
            case 2:
                queue.append(next)
                model.append(next)
                next += 1
            case 3 where !model.isEmpty:
                let position = Int(random.next() % UInt64(model.count))
                #expect(queue.remove(at: position) == model.remove(at: position))
            default:
                #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            }
            let probe = model.isEmpty ? -1 : model[Int(random.next() % UInt64(model.count))]
            #expect(queue.firstPosition { $0 == probe } == model.firstIndex(of: probe))
        }
        #expect(Array(queue.elements) == model)
    }
}

/// A small seeded generator, so that a failing run can be repeated.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
