import Synchronization

/// Records taken in and not yet finished (let go for commit, dead-lettered, dropped or given up), per partition,
/// and the waits for partitions to empty: a revoke waits for its partitions' records, a shutdown for all of them.
///
/// Waiting is an event, not a poll: the last record of a partition to close resumes whoever waits for it.
final class OpenRecords: Sendable {
    private struct Waiter {
        let id: UInt64
        /// nil: every partition.
        let partitions: Set<Int32>?
        let wake: @Sendable () -> Void
    }

    private struct State {
        var counts: [Int32: Int] = [:]
        var waiters: [Waiter] = []
        var nextId: UInt64 = 0

        func isEmpty(_ partitions: Set<Int32>?) -> Bool {
            guard let partitions else { return counts.isEmpty }
            return !partitions.contains { counts[$0] != nil }
        }
    }

    private let state = Mutex(State())

    /// All open records.
    var count: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    func opened(_ partition: Int32) {
        state.withLock { $0.counts[partition, default: 0] += 1 }
    }

    func closed(_ partition: Int32) {
        closed(CollectionOfOne(partition))
    }

    /// Closes one record per element, under one lock.
    func closed(_ partitions: some Sequence<Int32>) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            var emptied = false
            for partition in partitions {
                let left = (state.counts[partition] ?? 1) - 1
                state.counts[partition] = left > 0 ? left : nil
                emptied = emptied || left <= 0
            }
            guard emptied, !state.waiters.isEmpty else { return [] }
            let snapshot = state
            let ready = state.waiters.filter { snapshot.isEmpty($0.partitions) }
            state.waiters.removeAll { snapshot.isEmpty($0.partitions) }
            return ready.map(\.wake)
        }
        ready.forEach { $0() }
    }

    /// Waits until none of `partitions` (nil: none at all) has an open record, or `timeout` passes; says which.
    func waitUntilEmpty(_ partitions: Set<Int32>?, timeout: Duration) async -> Bool {
        await FirstOfEventOrTimeout.wait(upTo: timeout) { fire in
            let id = state.withLock { state -> UInt64? in
                guard !state.isEmpty(partitions) else { return nil }
                state.nextId += 1
                state.waiters.append(Waiter(id: state.nextId, partitions: partitions, wake: fire))
                return state.nextId
            }
            guard let id else {
                fire()
                return {}
            }
            return { self.state.withLock { $0.waiters.removeAll { $0.id == id } } }
        }
    }
}
