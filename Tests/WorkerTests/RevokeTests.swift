import Foundation
@testable import Records
import Synchronization
import TestSupport
import Testing
import UploadEngine
@testable import Worker

/// Handing batches over at a revoke: nothing applied after it, nothing left waiting for a commit that cannot come.
@Suite(.timeLimit(.minutes(1))) struct RevokeTests {
    @Test func abandoningABatchGivesUpItsWaitingRecordsInsteadOfDroppingThem() async {
        let gate = Gate()
        let uploader = ScriptedUploader { _, _ in await gate.wait() }
        let registry = BatchRegistry(configuration: EngineConfiguration(), dependencies: .init(
            makeRunner: { BatchRunner(batch: $0, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(), poster: $1) },
            publisher: RecordingPublisher(), sender: RecordingSender()))
        let done = Atomic<Int>(0), abandoned = Atomic<Int>(0)
        let job = JobCommand.upload(UploadJob(requestId: "r", batchId: "b", receiver: Receiver(id: "u", type: .user), sender: nil,
                                              parentMessageId: nil, concurrency: nil,
                                              files: [FileItem(fileId: "f", name: "f.pdf", mimeType: "application/pdf", source: .data(Data(count: 8)))],
                                              message: MessageOptions()))
        registry.handle(job, partition: 3, done: { done.add(1, ordering: .relaxed) }, abandoned: { abandoned.add(1, ordering: .relaxed) })
        registry.handle(.configure(batchId: "b", concurrency: 2), partition: 3,
                        done: { done.add(1, ordering: .relaxed) }, abandoned: { abandoned.add(1, ordering: .relaxed) })
        #expect(registry.busyBatchCount == 1)
        registry.abandon(partitions: [1, 2])
        #expect(abandoned.load(ordering: .relaxed) == 0, "batches of other partitions stay")
        registry.abandon(partitions: [3])
        #expect(abandoned.load(ordering: .relaxed) == 2, "each waiting record is given up exactly once")
        #expect(done.load(ordering: .relaxed) == 0, "and none is let go for commit")
        #expect(registry.batchCount == 0)
        gate.open()
    }

    @Test func aRevokeWaitsForApplicationsUnderWayButNotForLaterOnes() async {
        let gate = ApplyGate()
        let first = gate.enter()
        let quiesced = Locked(false)
        let waiter = Task {
            await gate.quiesce()
            quiesced.update { $0 = true }
        }
        await Task.yield()
        // Lanes keep applying other records; those that entered after the revoke began do not hold it up.
        let later = gate.enter()
        #expect(!quiesced.value)
        gate.leave(first)
        await waitFor("the wait to end") { await waiter.value }
        #expect(quiesced.value)
        gate.leave(later)
        await gate.quiesce()
    }
}
