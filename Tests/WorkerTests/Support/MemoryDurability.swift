import Foundation
import Synchronization
import UploadEngine
@testable import Worker

/// A `BatchDurability` in memory: "snapshots" are copies of the batch, taken when the test flushes, and records wait
/// for them as they would for the changelog.
final class MemoryDurability: BatchDurability, Sendable {
    private struct State {
        var stored: [String: UploadBatch] = [:]
        var dirty: [String: BatchRunner] = [:]
        /// Batches settled as values, not yet "recorded".
        var settled: [String: UploadBatch] = [:]
        var recorded: [String: Int] = [:]
        var waiters: [(batchId: String, version: Int, action: @Sendable () -> Void)] = []
        var forgotten: [String] = []
        var loads = 0
    }

    private let state = Mutex(State())

    /// Puts a batch in the store, as a restore would.
    func store(_ batch: UploadBatch) { state.withLock { $0.stored[batch.batchId] = batch } }

    func load(batchId: String, partition: Int32) -> UploadBatch? {
        state.withLock { state in
            state.loads += 1
            return state.settled[batchId] ?? state.stored[batchId]
        }
    }

    func changed(batchId: String, partition: Int32, runner: BatchRunner) {
        state.withLock { $0.dirty[batchId] = runner }
    }

    func settled(batchId: String, partition: Int32, batch: UploadBatch) {
        state.withLock { $0.settled[batchId] = batch }
    }

    /// A tombstone is recorded at once.
    func forget(batchId: String, partition: Int32) {
        state.withLock { state in
            state.forgotten.append(batchId)
            state.stored.removeValue(forKey: batchId)
            state.dirty.removeValue(forKey: batchId)
            state.settled.removeValue(forKey: batchId)
            state.recorded[batchId] = .max
        }
    }

    func whenRecorded(batchId: String, version: Int, _ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.dirty[batchId] == nil, state.settled[batchId] == nil,
               (state.recorded[batchId] ?? -1) >= version || state.stored[batchId] != nil { return true }
            state.waiters.append((batchId, version, action))
            return false
        }
        if now { action() }
    }

    var keepsBatches: Bool { true }
    var isBlocked: Bool { false }

    /// Takes the snapshots owed and runs the records waiting for them.
    func flush() {
        // Snapshots are taken outside the lock: runners tell of changes under theirs.
        let (dirty, settled) = state.withLock { state in
            defer { state.dirty = [:]; state.settled = [:] }
            return (state.dirty, state.settled)
        }
        let batches = settled.merging(dirty.mapValues(\.snapshot)) { _, runner in runner }
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            for (batchId, batch) in batches {
                state.stored[batchId] = batch
                state.recorded[batchId] = batch.stateVersion
            }
            let recorded = state.recorded
            let ready = state.waiters.filter { (recorded[$0.batchId] ?? -1) >= $0.version }
            state.waiters.removeAll { (recorded[$0.batchId] ?? -1) >= $0.version }
            return ready.map(\.action)
        }
        ready.forEach { $0() }
    }

    var stored: [String: UploadBatch] { state.withLock { $0.stored } }
    var forgotten: [String] { state.withLock { $0.forgotten } }
    var loads: Int { state.withLock { $0.loads } }
    var owed: Int { state.withLock { $0.dirty.count + $0.settled.count } }
}
