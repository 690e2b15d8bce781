import Foundation

/// A binary min-heap of deadlines, earliest first; ties keep scheduling order. The scheduler's bookkeeping: it
/// holds tickets, and a cancelled ticket's entry is skipped when it reaches the top instead of being searched for.
struct DeadlineQueue {
    struct Entry {
        var deadline: Date
        var ticket: DeadlineScheduler.Ticket

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : ticket.rawValue < other.ticket.rawValue
        }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func removeFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        siftDown(from: 0)
        return first
    }

    /// Keeps only the entries `isLive` accepts, rebuilt as a heap in O(n) (sifting down from the last parent).
    mutating func retain(where isLive: (Entry) -> Bool) {
        entries.removeAll { !isLive($0) }
        for parent in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: parent) }
    }

    /// Moves the entry at `parent` down until neither child precedes it.
    private mutating func siftDown(from parent: Int) {
        var parent = parent
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
