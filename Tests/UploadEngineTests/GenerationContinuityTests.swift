import Foundation
import Testing
import WireFormat
@testable import UploadEngine

/// Generations and `sequence` never go back for a batch id (DESIGN §2.2): not after a `remove`, a `clear` or a
/// restore, so event ids and muids made from them never repeat for different content.
@Suite struct GenerationContinuityTests {
    private static func uploadedIdentity(_ h: BatchHarness, _ fileId: String) -> [String] {
        h.events.filter { $0.fileId == fileId && { if case .uploaded = $0.kind { true } else { false } }($0) }.map(\.identity)
    }

    private static func muids(_ h: BatchHarness) -> [String] {
        h.events.compactMap { if case .messageSent(let muid, _, _, _) = $0.kind { muid } else { nil } }
    }

    @Test func aFileReAddedAfterRemoveGetsANewIdentityAndANewMuid() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.settleAll()
        h.answerPost()
        h.remove("f1")
        h.add([inline("f1", size: 200)], request: "r2")
        h.settleAll()
        h.answerPost()
        let identities = Self.uploadedIdentity(h, "f1")
        #expect(identities.count == 2)
        #expect(Set(identities).count == 2, "the second upload's file.uploaded must not share the first one's id")
        let muids = Self.muids(h)
        #expect(muids.count == 2)
        #expect(Set(muids).count == 2, "the chat API would drop the second message as a duplicate")
    }

    @Test func removedEventsOfOneFileIdAreToldApart() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.settleAll()
        h.remove("f1")
        h.add([inline("f1")], request: "r2")
        h.settleAll()
        h.remove("f1")
        let removed = h.events.filter { $0.kind == .removed }.map(\.identity)
        #expect(removed.count == 2 && Set(removed).count == 2)
    }

    @Test func twoRejectionsOfTheSameFileIdAreToldApart() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.add([inline("f1")], request: "r2")  // a live id: rejected
        h.add([inline("f1")], request: "r3")  // again
        let rejected = h.events.filter { if case .rejected = $0.kind { true } else { false } }.map(\.identity)
        #expect(rejected.count == 2 && Set(rejected).count == 2)
    }

    @Test func noTwoAttemptsOfTheBatchShareAGeneration() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("c")])
        h.stageAll(); h.presignAll()
        h.finishUpload("a", error: UploadError(.s3UploadFailed, "503", retryable: true))
        h.advance(.seconds(60))
        h.settleAll()
        h.remove("b")
        h.add([inline("b")], request: "r2")
        h.settleAll()
        let identities = h.events.filter { $0.fileId != nil && !$0.identity.isEmpty && !{ if case .progress = $0.kind { true } else { false } }($0) }
            .map { "\($0.fileId!)/\($0.kindName)/\($0.identity)" }
        #expect(Set(identities).count == identities.count, "\(identities)")
        #expect(h.batch.nextGeneration > h.batch.entries.map(\.generation).max()!)
    }

    @Test func aClearedBatchReCreatedByAJobContinuesItsSequenceAndGenerations() {
        var h = BatchHarness()
        h.add([inline("f1")])
        h.settleAll()
        h.answerPost()
        h.clear()
        #expect(h.batch.isCleared)
        h.batch.stampSequence(&h.events)
        let lastSequence = h.batch.eventSequence
        let generation = h.batch.nextGeneration
        let context = BatchContext(batchId: "b1", receiver: Receiver(id: "u2", type: .group), sender: "s2")
        // An empty file: rejected at intake, so the job has events at once.
        var effects = h.batch.takeJob([inline("f1", size: 0)], requestId: "r2", options: MessageOptions(send: .manual),
                                      concurrency: 2, context: context, now: h.now)
        h.batch.stampSequence(&effects.events)
        #expect(!h.batch.isCleared)
        #expect(h.batch.context == context, "the job after a clear starts a fresh batch: its receiver, not the cleared one's")
        #expect(h.batch.messageOptions.send == .manual)
        #expect(h.batch.concurrency == 2)
        #expect(effects.events.first.map(\.sequence) == lastSequence + 1, "a consumer ordering by sequence must not drop it")
        #expect(h.batch.entries.map(\.generation).allSatisfy { $0 >= generation })
    }

    @Test func aClearedSnapshotKeepsOnlyWhatTheNextBatchContinues() throws {
        var h = BatchHarness()
        h.add([inline("f1"), inline("f2")])
        h.settleAll()
        h.answerPost()
        h.clear()
        h.batch.stampSequence(&h.events)
        h.batch.appliedThrough = 41
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 3, maxBytes: 900 * 1024))
        guard case .object(let fields) = try JSONParser.parse(bytes) else { Issue.record("not an object"); return }
        #expect(Set(fields.keys) == ["v", "batchId", "cleared", "sequence", "nextGeneration", "stateVersion", "completions",
                                     "appliedThrough", "updatedAt", "writerGeneration"])
        let restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration)
        #expect(restored.batch.isCleared)
        #expect(restored.batch.entries.isEmpty)
        #expect(restored.batch.eventSequence == h.batch.eventSequence)
        #expect(restored.batch.nextGeneration == h.batch.nextGeneration)
        #expect(restored.batch.stateVersion == h.batch.stateVersion)
        #expect(restored.batch.completions == h.batch.completions)
        #expect(restored.batch.appliedThrough == 41)
        #expect(restored.writerGeneration == 3)
    }

    @Test func aRestoredPendingFileTakesAGenerationNoAttemptHadBefore() throws {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.stageAll()
        let before = h.batch.nextGeneration
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        let restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        #expect(restored.entries.map(\.generation) == [before, before + 1])
        #expect(restored.nextGeneration == before + 2)
    }

    @Test func aSnapshotWithoutTheGenerationCounterContinuesPastItsFiles() throws {
        var h = BatchHarness(concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.settleAll()
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        guard case .object(var fields) = try JSONParser.parse(bytes) else { Issue.record("not an object"); return }
        fields.removeValue(forKey: "nextGeneration")
        var writer = JSONWriter(capacity: 1024)
        writer.value(.object(fields))
        let restored = try BatchSnapshot.decode(writer.bytes, configuration: h.batch.configuration).batch
        #expect(restored.nextGeneration == h.batch.entries.map(\.generation).max()! + 1)
    }
}

private extension UploadEvent {
    var kindName: String {
        switch kind {
        case .progress: "progress"
        case .uploaded: "uploaded"
        case .rejected: "rejected"
        case .failed: "failed"
        case .removed: "removed"
        case .completed: "completed"
        case .messageSent: "sent"
        case .messageFailed: "messageFailed"
        }
    }
}
