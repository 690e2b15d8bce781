import Foundation
import Synchronization
import Testing
import UploadEngine
import TestSupport

/// Batches driven by their runners over the worker's shared transfer slots (DESIGN §4 *Never stop polling*, §12
/// *Fair share*): real tasks, fake collaborators, a manual clock.
@Suite(.timeLimit(.minutes(1))) struct SharedSlotsRunnerTests {
    /// Uploads that each wait until the test lets their file go.
    final class HeldUploads: Sendable {
        private let gates = Mutex<[String: Gate]>([:])

        func gate(_ fileId: String) -> Gate {
            gates.withLock { gates in
                if let gate = gates[fileId] { return gate }
                let gate = Gate()
                gates[fileId] = gate
                return gate
            }
        }

        func release(_ fileId: String) { gate(fileId).open() }

        var uploader: ScriptedUploader {
            ScriptedUploader { [self] transfer, progress in
                await gate(Self.fileId(of: transfer)).wait()
                progress(transfer.staged.size, transfer.staged.size)
            }
        }

        /// `https://store.test/up/<fileId>?sig=…`, as the scripted presigner signs it.
        static func fileId(of transfer: UploadTransfer) -> String {
            String(transfer.target.uploadURL.split(separator: "/").last!.split(separator: "?").first!)
        }
    }

    private static func file(_ id: String) -> FileItem {
        FileItem(fileId: id, name: "\(id).jpg", mimeType: "image/jpeg", source: .data(Data(count: 512)))
    }

    /// Runners sharing one set of slots, one timer queue and one manual clock, uploading through held uploads.
    struct Rig {
        let clock = ManualClock()
        let timers: DeadlineScheduler
        let shares: TransferShares
        let held = HeldUploads()
        let uploader: ScriptedUploader

        init(_ policy: TransferShares.Policy) {
            timers = DeadlineScheduler(clock: clock)
            shares = TransferShares(policy: policy)
            uploader = held.uploader
        }

        func runner(_ batchId: String, tenant: String, concurrency: Int = 1,
                    configure: (inout EngineConfiguration) -> Void = { _ in }) -> BatchRunner {
            var configuration = EngineConfiguration()
            configure(&configuration)
            let context = BatchContext(batchId: batchId, receiver: Receiver(id: "u-\(batchId)", type: .user), tenant: tenant)
            let batch = UploadBatch(context: context, configuration: configuration, concurrency: concurrency, random: JitterRandom(seed: 5))
            return BatchRunner(batch: batch, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(),
                               clock: clock, timers: timers, shares: shares)
        }
    }

    @Test func filesWaitingForASlotDoNotStall() async {
        let rig = Rig(.init(capacity: 2))
        let (clock, shares, held, uploader) = (rig.clock, rig.shares, rig.held, rig.uploader)
        let recorder = EventRecorder()
        let runners = (0..<6).map { index in
            rig.runner("b\(index)", tenant: "one") {
                $0.stallTimeout = .seconds(2)
                $0.retry.maxAttempts = 1
            }
        }
        for (index, runner) in runners.enumerated() {
            runner.setGlobalObserver(recorder.observer)
            runner.upload([Self.file("f\(index)")], requestId: "r\(index)")
        }
        // Three rounds of two uploads, 1.5 virtual seconds each: the last files wait 3 s for their slot, past the
        // 2 s stall timeout, while no upload in flight goes 2 s without progress.
        for round in 0..<3 {
            await yieldUntil { uploader.calls.count == 2 * (round + 1) }
            #expect(uploader.calls.count == 2 * (round + 1))
            #expect(shares.waitingFiles == 6 - 2 * (round + 1))
            clock.advance(by: .milliseconds(1_500))
            for index in (2 * round)..<(2 * round + 2) { held.release("f\(index)") }
        }
        await recorder.waitForCompletions(6)

        let failures = recorder.events.filter { if case .failed = $0.kind { true } else { false } }
        #expect(failures.isEmpty, "waiting for a slot was taken for a stall: \(failures)")
        #expect(uploader.calls.allSatisfy { $0.holdsSlot }, "an upload runs on its file's slot, waiting for no other cap")
        #expect(uploader.peakConcurrency == 2)
        #expect(shares.heldCount == 0)
        #expect(shares.waitingFiles == 0)
    }

    /// Without the worker's slots nothing bounds a batch's uploads but its concurrency: they wait for the HTTP
    /// client's cap like any other request.
    @Test func anUploadWithoutSharedSlotsHoldsNoSlotOfItsOwn() async {
        let uploader = ScriptedUploader()
        let batch = UploadBatch(context: BatchContext(batchId: "solo", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration())
        let runner = BatchRunner(batch: batch, presigner: ScriptedPresigner(), uploader: uploader, stager: ScriptedStager(),
                                 clock: ManualClock())
        runner.upload([Self.file("f")], requestId: "r")
        await yieldUntil { uploader.calls.count == 1 }
        #expect(uploader.calls.first?.holdsSlot == false)
    }

    @Test func anotherTenantsFileTakesTheNextFreeSlot() async {
        let rig = Rig(.init(capacity: 2))
        let (shares, held, uploader) = (rig.shares, rig.held, rig.uploader)
        let crowd = rig.runner("crowd", tenant: "a", concurrency: 500) { $0.limits.fileCountMax = 500 }
        crowd.upload((0..<500).map { Self.file("a\($0)") }, requestId: "r-a")
        await yieldUntil { uploader.calls.count == 2 }
        #expect(shares.waitingFiles == 498)

        let single = rig.runner("single", tenant: "b")
        let recorder = EventRecorder()
        single.setGlobalObserver(recorder.observer)
        single.upload([Self.file("b0")], requestId: "r-b")
        #expect(uploader.calls.count == 2, "b waits for a slot like everyone")

        held.release("a0")
        await yieldUntil { uploader.calls.count == 3 }
        let calls = uploader.calls.map(HeldUploads.fileId(of:))
        #expect(Set(calls.prefix(2)) == ["a0", "a1"])
        #expect(calls.last == "b0", "b's one file goes before a's 498 others")
        held.release("b0")
        await recorder.waitForCompletions(1)
        // b's slot went back to a as b finished (a2), and a1's goes to a3: a's files fill the slots again, in order.
        held.release("a1")
        await yieldUntil { uploader.calls.count >= 5 }
        #expect(uploader.calls.dropFirst(3).map(HeldUploads.fileId(of:)) == ["a2", "a3"], "with b done, a has the slots again")
        crowd.abandon()
        #expect(shares.heldCount == 0)
        #expect(shares.pendingCount == 0)
    }

    @Test func aTenantCapLeavesSlotsToOthers() async {
        let rig = Rig(.init(capacity: 4, maxPerTenant: 1))
        let (shares, uploader) = (rig.shares, rig.uploader)
        let busy = rig.runner("busy", tenant: "a", concurrency: 4)
        busy.upload((0..<4).map { Self.file("a\($0)") }, requestId: "r-a")
        await yieldUntil { uploader.calls.count == 1 }
        let other = rig.runner("other", tenant: "b", concurrency: 4)
        other.upload((0..<4).map { Self.file("b\($0)") }, requestId: "r-b")
        await yieldUntil { uploader.calls.count == 2 }
        #expect(Set(uploader.calls.map(HeldUploads.fileId(of:))) == ["a0", "b0"])
        #expect(shares.held(by: "a") == 1)
        #expect(shares.held(by: "b") == 1)
        busy.abandon()
        other.abandon()
        #expect(shares.heldCount == 0)
    }
}
