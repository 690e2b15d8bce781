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
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var counts: [Int32: Int] = [:]
        var waiters: [Waiter] = []
        var nextId: UInt64 = 0
        /// Waits cancelled before they were registered.
        var cancelled: Set<UInt64> = []

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
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
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
            return ready.map(\.continuation)
        }
        ready.forEach { $0.resume() }
    }

    /// Waits until none of `partitions` (nil: none at all) has an open record, or `timeout` passes; says which.
    func waitUntilEmpty(_ partitions: Set<Int32>?, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitUntilEmpty(partitions); return !Task.isCancelled }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitUntilEmpty(_ partitions: Set<Int32>?) async {
        let id = state.withLock { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || state.isEmpty(partitions) { return true }
                    state.waiters.append(Waiter(id: id, partitions: partitions, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiting?.resume()
        }
    }
}
