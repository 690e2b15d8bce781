import Foundation
@testable import KafkaIO
import Synchronization
import TestSupport
import Testing
@testable import Worker

/// A partition's records wait for its restore, and a revoke calls the restore off (§4.1 *Revoke during restore*):
/// nothing is resumed for a partition the worker no longer owns, and a later assignment restores afresh.
@Suite(.timeLimit(.minutes(1))) struct RestoreGateTests {
    /// A restore that runs until it is cancelled or let go, and says what it did.
    private final class Restores: Sendable {
        let started = Mutex<[Int32]>([])
        let resumed = Mutex<[Int32]>([])
        let letGo = Mutex(false)

        func restore(_ partition: Int32) async -> Bool {
            started.withLock { $0.append(partition) }
            while !letGo.withLock({ $0 }) {
                guard !Task.isCancelled else { return false }
                await Task.yield()
            }
            guard !Task.isCancelled else { return false }
            resumed.withLock { $0.append(partition) }
            return true
        }
    }

    private static func record(partition: Int32, assignment: UInt64) -> KafkaRecord {
        KafkaRecord(topic: "jobs", partition: partition, offset: 0, key: nil, value: nil, headers: [], timestampMilliseconds: nil,
                    generation: assignment)
    }

    @Test func aRevokeCallsTheRestoreOffAndItsRecordsAreNotReady() async throws {
        let restores = Restores()
        let gate = RestoreGate { await restores.restore($0) }
        gate.begin(3, assignment: 1)
        #expect(await eventually { restores.started.withLock { $0 } == [3] })
        let handover = await gate.cancel([3])
        restores.letGo.withLock { $0 = true }
        #expect(await gate.ready(for: [Self.record(partition: 3, assignment: 1)]) == false)
        #expect(restores.resumed.withLock { $0 }.isEmpty, "nothing resumes for a partition the worker no longer owns")
        #expect(restores.started.withLock { $0 } == [3], "a record of the revoked assignment starts no restore of its own")

        handover.finish()
        gate.begin(3, assignment: 2)
        #expect(await gate.ready(for: [Self.record(partition: 3, assignment: 2)]))
        #expect(restores.resumed.withLock { $0 } == [3], "the next assignment restores afresh")
    }

    @Test func otherPartitionsKeepRestoring() async {
        let restores = Restores()
        let gate = RestoreGate { await restores.restore($0) }
        gate.begin(1, assignment: 1)
        gate.begin(2, assignment: 1)
        #expect(await eventually { restores.started.withLock { Set($0) } == [1, 2] })
        await gate.cancel([1])
        restores.letGo.withLock { $0 = true }
        #expect(await gate.ready(for: [Self.record(partition: 2, assignment: 1)]))
        #expect(restores.resumed.withLock { $0 } == [2])
    }

    /// A revoke can outlast the consumer's wait for it and the partition come back meanwhile: the new assignment's
    /// restore (and so its records) waits until the old revoke let the partition go, or the old revoke's end would
    /// release the new claim and drop the rows its restore wrote.
    @Test func aPartitionsNextRestoreWaitsUntilTheRevokeBeforeHandedItOver() async {
        let restores = Restores()
        restores.letGo.withLock { $0 = true }
        let gate = RestoreGate { await restores.restore($0) }
        #expect(await gate.ready(for: [Self.record(partition: 3, assignment: 1)]))
        let first = await gate.cancel([3])
        gate.begin(3, assignment: 2)
        gate.begin(4, assignment: 2)
        #expect(await eventually { restores.resumed.withLock { $0 } == [3, 4] }, "another partition does not wait")
        for _ in 0..<50 { await Task.yield() }
        #expect(restores.started.withLock { $0 } == [3, 4], "the new restore waits for the revoke")

        // Revoked again before the first revoke ended: the waiting restore is called off at once, and the next one
        // waits for both revokes.
        let second = await gate.cancel([3])
        #expect(await gate.ready(for: [Self.record(partition: 3, assignment: 2)]) == false)
        second.finish()
        gate.begin(3, assignment: 3)
        for _ in 0..<50 { await Task.yield() }
        #expect(restores.started.withLock { $0 } == [3, 4], "the first revoke still holds the partition")
        first.finish()
        #expect(await gate.ready(for: [Self.record(partition: 3, assignment: 3)]))
        #expect(restores.resumed.withLock { $0 } == [3, 4, 3])
    }
}
