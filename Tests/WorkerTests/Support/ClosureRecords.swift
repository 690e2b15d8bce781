import KafkaIO
@testable import Records
import Synchronization
import UploadEngine
@testable import Worker

/// Held records answered through closures: what each test wants to happen when its record is committed or given
/// up. Each record handled gets its own ticket (in the position's generation), so a record replayed at the same
/// offset is told apart from the first.
final class ClosureRecords: HeldRecords {
    private struct Outcome {
        let done: @Sendable () -> Void
        let abandoned: @Sendable () -> Void
    }
    private struct State {
        var outcomes: [UInt64: Outcome] = [:]
        var nextTicket: UInt64 = 0
        var nextOffset: Int64 = 0
    }
    private let state = Mutex(State())

    func register(partition: Int32, offset: Int64?, done: @escaping @Sendable () -> Void,
                  abandoned: @escaping @Sendable () -> Void) -> RecordPosition {
        state.withLock { state in
            state.nextTicket += 1
            state.outcomes[state.nextTicket] = Outcome(done: done, abandoned: abandoned)
            let offset = offset ?? state.nextOffset
            state.nextOffset = max(state.nextOffset, offset) + 1
            return RecordPosition(topicPartition: TopicPartition("jobs", partition), offset: offset, generation: state.nextTicket)
        }
    }

    func commit(_ records: [RecordPosition]) {
        take(records).forEach { $0.done() }
    }

    func giveUp(_ records: [RecordPosition]) {
        take(records).forEach { $0.abandoned() }
    }

    private func take(_ records: [RecordPosition]) -> [Outcome] {
        state.withLock { state in records.map { state.outcomes.removeValue(forKey: $0.generation)! } }
    }
}

private let installing = Mutex(())

extension BatchRegistry {
    /// Applies a record whose commit runs `done` and whose giving up runs `abandoned`. Without an `offset`, each record
    /// gets the next one after those seen, so none reads as a replay.
    func handle(_ command: JobCommand, partition: Int32 = 0, offset: Int64? = nil, done: @escaping @Sendable () -> Void,
                abandoned: @escaping @Sendable () -> Void = {}) {
        let records = installing.withLock { _ in
            if let installed = heldRecords as? ClosureRecords { return installed }
            let records = ClosureRecords()
            returnRecords(to: records)
            return records
        }
        handle(command, record: records.register(partition: partition, offset: offset, done: done, abandoned: abandoned))
    }
}
