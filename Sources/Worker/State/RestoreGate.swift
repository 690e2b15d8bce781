import KafkaIO
import Synchronization

/// Holds a partition's records back until its batches are restored: the first records of each new assignment of
/// a partition start its restore, and every record of that assignment waits for it. A restore that fails makes the
/// partition's records wait for good (they stay uncommitted); the worker treats the failure as fatal. A revoke
/// cancels the partition's restore (``cancel(_:)``).
final class RestoreGate: Sendable {
    /// Restores one partition and resumes its pending batches; false when it failed.
    typealias Restore = @Sendable (_ partition: Int32) async -> Bool

    private let restore: Restore
    /// Per partition: the assignment restored (or being restored) and its outcome.
    private let restores = Mutex<[Int32: (assignment: UInt64, task: Task<Bool, Never>)]>([:])

    init(restore: @escaping Restore) {
        self.restore = restore
    }

    /// Starts restoring a partition for a new assignment, before any of its records arrive: pending files and sends
    /// resume even when no record of the partition comes.
    func begin(_ partition: Int32, assignment: UInt64) {
        _ = task(for: partition, assignment: assignment)
    }

    /// Waits until the partitions of `records` are restored for the assignments that delivered them; says whether
    /// they all were.
    func ready(for records: some Sequence<KafkaRecord>) async -> Bool {
        var seen: [Int32: UInt64] = [:]
        for record in records { seen[record.partition] = max(seen[record.partition] ?? 0, record.generation) }
        var ok = true
        for (partition, assignment) in seen {
            ok = await task(for: partition, assignment: assignment).value && ok
        }
        return ok
    }

    /// Calls off the restores of partitions revoked or lost, and returns once they ended: nothing is restored,
    /// resumed or written for a partition the worker no longer owns (§4.1 *Revoke during restore*). Records that
    /// wait for them are told the partition is not ready.
    func cancel(_ partitions: Set<Int32>) async {
        let running = restores.withLock { restores in
            partitions.compactMap { partition -> Task<Bool, Never>? in
                guard let current = restores[partition] else { return nil }
                // Records of the revoked assignment still asking are told no, and start no restore of their own; the
                // partition's next assignment starts one.
                restores[partition] = (current.assignment, Task { false })
                return current.task
            }
        }
        for task in running {
            task.cancel()
            _ = await task.value
        }
    }

    private func task(for partition: Int32, assignment: UInt64) -> Task<Bool, Never> {
        restores.withLock { restores in
            if let current = restores[partition], current.assignment >= assignment { return current.task }
            let restore = self.restore
            let task = Task { await restore(partition) }
            restores[partition] = (assignment, task)
            return task
        }
    }
}
