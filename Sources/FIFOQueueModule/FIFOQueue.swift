/// A first-in-first-out buffer: appends at the back, removals from the front in O(1) amortised. The removed prefix
/// stays in the storage until it is at least half of it (and 1,024 elements), then goes in one move; an emptied
/// queue gives a large storage back, so memory follows what is queued, not the largest burst ever seen.
///
/// The one queue of the package: the Kafka record buffer and offset watermark's slots, the event publisher's
/// barriers, the changelog writer's pending snapshots, the dashboard's stream deltas and a batch's rejection order.
/// A module of its own because the engine and the Kafka clients both need it and neither may import the other.
///
/// Inlinable: a generic type is otherwise called through witness tables, unspecialised, from every other module — and
/// the record buffer and the offset watermark are on every record's path.
public struct FIFOQueue<Element: Sendable>: Sendable {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var count: Int { storage.count - head }
    @inlinable public var isEmpty: Bool { head == storage.count }
    @inlinable public var first: Element? { isEmpty ? nil : storage[head] }

    /// The queued elements, front first.
    @inlinable public var elements: ArraySlice<Element> { storage[head...] }

    /// The element `position` places behind the front (0 is the front).
    @inlinable public subscript(position: Int) -> Element {
        get { storage[head + position] }
        set { storage[head + position] = newValue }
    }

    @inlinable public mutating func append(_ element: Element) {
        storage.append(element)
    }

    @inlinable public mutating func append(contentsOf elements: some Sequence<Element>) {
        storage.append(contentsOf: elements)
    }

    /// Puts `element` in front of the others: a retry that keeps its place.
    @inlinable public mutating func prepend(_ element: Element) {
        if head > 0 {
            head -= 1
            storage[head] = element
        } else {
            storage.insert(element, at: 0)
        }
    }

    /// Puts `element` `position` places behind the front (`count`: at the back, in O(1)); the elements from
    /// there on move back one. For a queue kept in an order that a late arrival may need to join in the middle of.
    @inlinable public mutating func insert(_ element: Element, at position: Int) {
        precondition(position >= 0 && position <= count, "FIFOQueue.insert: position \(position) outside 0...\(count)")
        if position == count {
            storage.append(element)
        } else if position == 0 {
            prepend(element)
        } else {
            storage.insert(element, at: head + position)
        }
    }

    /// Removes and returns the element `position` places behind the front; the ones behind it move up.
    @inlinable @discardableResult public mutating func remove(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "FIFOQueue.remove: position \(position) outside 0..<\(count)")
        if position == 0 { return popFirst()! }
        return storage.remove(at: head + position)
    }

    /// The position (0 is the front) of the first element that satisfies `predicate`.
    @inlinable public func firstPosition(where predicate: (Element) -> Bool) -> Int? {
        storage[head...].firstIndex(where: predicate).map { $0 - head }
    }

    /// Removes and returns the front element; nil when empty.
    @inlinable public mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        dropFirst(1)
        return element
    }

    /// Removes and returns up to `maximum` elements from the front, in order.
    @inlinable public mutating func popFirst(_ maximum: Int) -> [Element] {
        let taken = Array(storage[head..<head + min(max(maximum, 0), count)])
        dropFirst(taken.count)
        return taken
    }

    /// Removes `k` elements (at most `count`) from the front.
    @inlinable public mutating func dropFirst(_ k: Int) {
        head += min(max(k, 0), count)
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= Self.keptCapacity)
            head = 0
        } else if head >= 1024, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Removes the elements `shouldBeRemoved` picks, keeping the rest in order.
    @inlinable public mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        storage = storage[head...].filter { !shouldBeRemoved($0) }
        head = 0
    }

    @inlinable public mutating func removeAll() {
        storage.removeAll(keepingCapacity: storage.capacity <= Self.keptCapacity)
        head = 0
    }

    /// Storage an emptied queue keeps for the next burst; a larger one is given back.
    @usableFromInline static var keptCapacity: Int { 4096 }
}

extension FIFOQueue: Equatable where Element: Equatable {
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elements.elementsEqual(rhs.elements) }
}

extension FIFOQueue: Hashable where Element: Hashable {
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in elements { hasher.combine(element) }
    }
}
