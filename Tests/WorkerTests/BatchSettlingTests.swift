import Dispatch
import Foundation
@testable import Records
import Synchronization
import TestSupport
import Testing
import UploadEngine
@testable import Worker

/// A record is let go only once its batch has settled as the registry saw it: its events published and the send on
/// drain done — not merely once the engine's state says idle.
@Suite(.timeLimit(.minutes(1))) struct BatchSettlingTests {
    /// Holds the publishing of one event type on the publishing thread until the test lets it go, as a slow path
    /// between the engine and the producer would.
    final class HeldPublisher: EventPublisher {
        let inner = RecordingPublisher()
        let heldType: String
        let entered = Atomic<Bool>(false)
        private let release = DispatchSemaphore(value: 0)

        init(holding type: String) { heldType = type }

        func publish(_ event: WorkerEvent, sequence: UInt64) {
            if event.type == heldType, !entered.exchange(true, ordering: .relaxed) {
                release.wait()
            }
            inner.publish(event, sequence: sequence)
        }

        func whenDelivered(_ action: @escaping @Sendable () -> Void) { inner.whenDelivered(action) }

        func letGo() { release.signal() }
    }

    @Test func aRecordOfTheSameBatchSettlingMeanwhileDoesNotReleaseOneWhoseEventsAreStillOnTheirWay() async {
        let publisher = HeldPublisher(holding: "attache.file.uploaded")
        let sender = RecordingSender()
        var configuration = EngineConfiguration()
        configuration.concurrency = 2
        let registry = BatchRegistry(configuration: configuration, dependencies: .init(
            makeRunner: { BatchRunner(batch: $0, presigner: ScriptedPresigner(), uploader: ScriptedUploader(), stager: ScriptedStager(), poster: $1) },
            publisher: publisher, sender: sender))
        let seenAtRelease = Locked<(types: [String], messages: Int)?>(nil)
        let first = RecordCompletion()
        let job = JobCommand.upload(UploadJob(requestId: "req-1", batchId: "b", receiver: Receiver(id: "uid-1", type: .user), sender: "uid-7",
                                              parentMessageId: nil, concurrency: nil,
                                              files: [FileItem(fileId: "f", name: "f.pdf", mimeType: "application/pdf", source: .data(Data(count: 64)))],
                                              message: MessageOptions()))
        registry.handle(job) {
            seenAtRelease.update { $0 = (publisher.inner.types, sender.messages.count) }
            first.done()
        }
        // The upload finished: the engine is idle while its events wait on the publishing thread.
        await yieldUntil { publisher.entered.load(ordering: .relaxed) }
        #expect(registry.runner(for: "b")?.status == .idle)

        let second = RecordCompletion()
        registry.handle(.configure(batchId: "b", concurrency: 3), done: second.done)
        #expect(first.calls == 0, "the first record waits for its batch's events and its send")
        #expect(second.calls == 0, "so does the second: the batch has not settled")

        publisher.letGo()
        await first.wait()
        await second.wait()
        let seen = seenAtRelease.value
        #expect(seen?.types.contains("attache.batch.completed") == true, "completed was published before the release")
        #expect(seen?.messages == 1, "the send on drain finished before the release")
    }
}
