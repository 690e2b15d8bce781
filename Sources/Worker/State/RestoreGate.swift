import KafkaIO
import Synchronization

/// Holds a partition's records back until its batches are restored: the first records of each new assignment of
/// a partition start its restore, and every record of that assignment waits for it. A restore that fails makes the
/// partition's records wait for good (they stay uncommitted); the worker treats the failure as fatal. A revoke
/// cancels the partition's restore (``cancel(_:)``), and the partition's next restore waits until that revoke has
/// handed the partition over (``Handover``).
final class RestoreGate: Sendable {
    /// Restores one partition and resumes its pending batches; false when it failed.
    typealias Restore = @Sendable (_ partition: Int32) async -> Bool

    private let restore: Restore
    /// Per partition: the assignment restored (or being restored) and its outcome.
    private let restores = Mutex<[Int32: (assignment: UInt64, task: Task<Bool, Never>)]>([:])
    /// Per partition: the last revoke's hand-over, which its next restore waits for.
    private let handovers = Mutex<[Int32: Handover]>([:])

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
    ///
    /// Answers the revoke's hand-over, which the revoke finishes once it let go of the partitions: their next
    /// restores wait for it. A revoke may outlast the consumer's wait for it, and the partition come back meanwhile;
    /// without the wait, the old revoke's end (its sessions abandoned, its claim released, its rows dropped) would
    /// land on the new claim's restore and records.
    @discardableResult
    func cancel(_ partitions: Set<Int32>) async -> Handover {
        let handover = handovers.withLock { handovers in
            let handover = Handover(after: partitions.compactMap { handovers[$0] }.filter { !$0.isFinished })
            for partition in partitions { handovers[partition] = handover }
            return handover
        }
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
        return handover
    }

    private func task(for partition: Int32, assignment: UInt64) -> Task<Bool, Never> {
        restores.withLock { restores in
            if let current = restores[partition], current.assignment >= assignment { return current.task }
            let restore = self.restore
            let handover = handovers.withLock { $0[partition] }
            let task = Task {
                await handover?.wait()
                guard !Task.isCancelled else { return false }
                return await restore(partition)
            }
            restores[partition] = (assignment, task)
            return task
        }
    }
}

extension RestoreGate {
    /// A revoke letting go of its partitions: finished once it did, waited for by their next restores — after the
    /// revokes before it, which a revoke outlasting the consumer's wait may leave still running.
    final class Handover: Sendable {
        private struct State {
            var finished = false
            var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
            var nextWaiter: UInt64 = 0
        }

        /// Unfinished revokes of its partitions (one may appear more than once: waiting again costs nothing).
        private let earlier: [Handover]
        private let state = Mutex(State())

        init(after earlier: [Handover]) {
            self.earlier = earlier
        }

        var isFinished: Bool { state.withLock { $0.finished } }

        /// The revoke let go of its partitions.
        func finish() {
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            waiters.forEach { $0.resume() }
        }

        /// Returns once this revoke and those before it finished, or once the waiting task is cancelled (a restore
        /// called off by the next revoke does not wait for the one before).
        func wait() async {
            for handover in earlier { await handover.wait() }
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        guard !state.finished, !Task.isCancelled else { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }
}
