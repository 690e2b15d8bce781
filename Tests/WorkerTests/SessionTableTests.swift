import Foundation
import KafkaIO
import Testing
import UploadEngine
import TestSupport
@testable import Worker

/// The session table's busy count follows every change made through it, however the change is made.
@Suite struct SessionTableTests {
    private func session() -> BatchSession {
        let context = BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user))
        let runner = BatchRunner(batch: UploadBatch(context: context, configuration: EngineConfiguration()), presigner: ScriptedPresigner(),
                                 uploader: ScriptedUploader(), stager: ScriptedStager(), clock: ManualClock())
        return BatchSession(runner: runner, partition: 0, lastActivity: Date())
    }

    @Test func theBusyCountFollowsWaitingRecordsThroughUpdates() {
        var table = SessionTable()
        var busy = session()
        busy.waiting.append(RecordPosition(topicPartition: TopicPartition("jobs", 0), offset: 0))
        table.insert(busy, for: "a")
        table.insert(session(), for: "b")
        #expect(table.count == 2)
        #expect(table.busyCount == 1)

        table.update("b") { $0.waiting.append(RecordPosition(topicPartition: TopicPartition("jobs", 0), offset: 0)) }
        #expect(table.busyCount == 2)
        table.update("b") { $0.waiting.append(RecordPosition(topicPartition: TopicPartition("jobs", 0), offset: 0)) }  // two records are still one busy batch
        #expect(table.busyCount == 2)
        table.update("a") { $0.waiting = [] }
        #expect(table.busyCount == 1)

        #expect(table.update("missing") { $0.intake += 1 } == nil)
        #expect(table.busyCount == 1)

        #expect(table.removeValue(forKey: "b") != nil)
        #expect(table.busyCount == 0)
        #expect(table.removeValue(forKey: "b") == nil)
        #expect(table.count == 1)
    }

    @Test func updatesChangeTheStoredSessionAndReadsSeeIt() {
        var table = SessionTable()
        table.insert(session(), for: "a")
        let result = table.update("a") { session -> Int in
            session.intake += 2
            return session.intake
        }
        #expect(result == 2)
        #expect(table.read("a") { $0.intake } == 2)
        #expect(table.read("missing") { $0.intake } == nil)
    }

    @Test func aTableEmptiedAfterABurstGivesBackItsCapacityAndKeepsTheRest() {
        var table = SessionTable()
        var busy = session()
        busy.waiting.append(RecordPosition(topicPartition: TopicPartition("jobs", 0), offset: 0))
        table.insert(busy, for: "kept")
        let one = session()
        for index in 0..<20_000 { table.insert(one, for: "b\(index)") }
        let grown = table.capacity
        for index in 0..<20_000 { table.removeValue(forKey: "b\(index)") }
        #expect(grown >= 20_000)
        #expect(table.capacity < 1_024 * 2, "capacity \(table.capacity) after the burst")
        #expect(table.count == 1 && table.busyCount == 1)
        #expect(table.read("kept") { $0.waiting.count } == 1)
    }
}
