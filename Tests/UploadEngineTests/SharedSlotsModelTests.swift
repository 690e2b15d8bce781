import Foundation
import Synchronization
import Testing
import TestSupport
@testable import UploadEngine

/// Runners of many batches and tenants over one set of transfer slots, driven by a seeded random schedule of jobs,
/// uploads that succeed or fail, removals, clears, concurrency changes, handovers and time; after every step, once
/// the tasks it set off have settled, the slots must add up: every slot held is a file in flight, none is held
/// twice or lost, no tenant goes over its cap, and no slot sits free while a file could start.
@Suite(.timeLimit(.minutes(2))) struct SharedSlotsModelTests {
    /// Uploads that wait until the schedule ends them, one way or the other.
    final class Uploads: Sendable {
        private struct Running {
            var continuation: CheckedContinuation<Void, any Error>
            var token: UInt64
        }

        private let state = Mutex<(running: [String: Running], next: UInt64)>(([:], 0))

        var runningKeys: [String] { state.withLock { $0.running.keys.sorted() } }

        func end(_ key: String, failing: Bool) {
            guard let running = state.withLock({ $0.running.removeValue(forKey: key) }) else { return }
            if failing {
                running.continuation.resume(throwing: UploadError(.s3UploadFailed, "refused by the schedule", retryable: true))
            } else {
                running.continuation.resume()
            }
        }

        var uploader: ScriptedUploader {
            ScriptedUploader { [self] transfer, progress in
                // The URL names the batch and the file (``BatchPresigner``).
                let key = transfer.target.uploadURL
                let token = state.withLock { state -> UInt64 in
                    state.next += 1
                    return state.next
                }
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        state.withLock { $0.running[key] = Running(continuation: continuation, token: token) }
                    }
                } onCancel: {
                    let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                        guard let running = state.running[key], running.token == token else { return nil }
                        state.running[key] = nil
                        return running.continuation
                    }
                    cancelled?.resume(throwing: CancellationError())
                }
                progress(transfer.staged.size, transfer.staged.size)
            }
        }
    }

    /// A presigner whose URLs name the batch as well as the file, so uploads of equal file ids stay apart.
    struct BatchPresigner: Presigner {
        func presign(_ files: [PresignFile], in batch: BatchContext) async throws -> [String: PresignOutcome] {
            Dictionary(uniqueKeysWithValues: files.map { file in
                (file.fileId, .target(UploadTarget(uploadURL: "https://store.test/\(batch.batchId)/\(file.fileId)",
                                                   fileURL: "https://cdn.test/\(batch.batchId)/\(file.fileId)")))
            })
        }
    }

    struct Batch {
        let runner: BatchRunner
        let tenant: String
        var abandoned = false
    }

    private static func setting(_ name: String, _ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap(UInt64.init) ?? fallback
    }

    /// `ATTACHE_SLOTS_SEEDS` runs more (`ops/fuzz slots`); `ATTACHE_SLOTS_FIRST_SEED` starts elsewhere, to replay one.
    @Test func slotsAddUpOverRandomSchedules() async throws {
        let first = Self.setting("ATTACHE_SLOTS_FIRST_SEED", 0)
        for seed in first..<(first + Self.setting("ATTACHE_SLOTS_SEEDS", 100)) {
            await run(seed: seed)
        }
    }

    private func run(seed: UInt64) async {
        var random = JitterRandom(seed: seed &* 7919)
        let capacity = Int.random(in: 1...4, using: &random)
        let cap = Bool.random(using: &random) ? Int.random(in: 1...capacity, using: &random) : Int.max
        let clock = ManualClock()
        let timers = DeadlineScheduler(clock: clock)
        let shares = TransferShares(policy: .init(capacity: capacity, weights: ["a": 2], maxPerTenant: cap))
        let uploads = Uploads()
        let uploader = uploads.uploader
        var batches: [Batch] = []
        var nextFile = 0

        func live() -> [Batch] { batches.filter { !$0.abandoned } }
        /// Files in flight across the live batches, as their runners see them.
        func inFlight() -> Int { live().reduce(0) { $0 + $1.runner.snapshot.slotDemand(now: clock.now()).inUse } }

        for step in 0..<120 {
            let running = uploads.runningKeys
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                let tenant = ["a", "b", "c"].randomElement(using: &random)!
                var configuration = EngineConfiguration()
                configuration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .seconds(1), maxDelay: .seconds(1))
                configuration.limits.fileCountMax = 50
                let context = BatchContext(batchId: "b\(batches.count)", receiver: Receiver(id: "u", type: .user), tenant: tenant)
                let batch = UploadBatch(context: context, configuration: configuration,
                                        concurrency: Int.random(in: 1...3, using: &random), random: JitterRandom(seed: UInt64(step)))
                let runner = BatchRunner(batch: batch, presigner: BatchPresigner(), uploader: uploader, stager: ScriptedStager(),
                                         clock: clock, timers: timers, shares: shares)
                batches.append(Batch(runner: runner, tenant: tenant))
                fallthrough
            case 2:
                guard let index = live().indices.randomElement(using: &random) else { break }
                let files = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    nextFile += 1
                    return FileItem(fileId: "f\(nextFile)", name: "f\(nextFile).jpg", mimeType: "image/jpeg", source: .data(Data(count: 64)))
                }
                live()[index].runner.upload(files, requestId: "r\(step)")
            case 3, 4, 5:
                guard let key = running.randomElement(using: &random) else { break }
                uploads.end(key, failing: Int.random(in: 0..<4, using: &random) == 0)
            case 6:
                guard let batch = live().randomElement(using: &random),
                      let file = batch.runner.snapshot.entries.randomElement(using: &random) else { break }
                batch.runner.remove(fileId: file.fileId)
            case 7:
                switch Int.random(in: 0..<3, using: &random) {
                case 0: live().randomElement(using: &random)?.runner.clear()
                case 1: live().randomElement(using: &random)?.runner.setConcurrency(Int.random(in: 1...4, using: &random))
                default:
                    // A handover: held, then abandoned, like a revoked partition's batch.
                    guard let index = batches.indices.filter({ !batches[$0].abandoned }).randomElement(using: &random) else { break }
                    batches[index].runner.holdForHandover {}
                    batches[index].runner.abandon()
                    batches[index].abandoned = true
                }
            default:
                clock.advance(by: .milliseconds(Int64.random(in: 100...1500, using: &random)))
            }
            // Settled: every file in flight has its upload running (staging and presigning are instant here), and
            // every timer due has fired. Until then a file may be about to start: the wait is for the invariants.
            func tenantHeld(_ tenant: String) -> Int {
                live().filter { $0.tenant == tenant }.reduce(0) { $0 + $1.runner.snapshot.slotDemand(now: clock.now()).inUse }
            }
            func couldStart() -> Bool {
                ["a", "b", "c"].contains { tenant in
                    tenantHeld(tenant) < cap && live().contains { batch in
                        let demand = batch.runner.snapshot.slotDemand(now: clock.now())
                        return batch.tenant == tenant && demand.wanted > demand.inUse
                    }
                }
            }
            func timerDue() -> Bool {
                live().contains { $0.runner.snapshot.nextDeadline.map { $0 <= clock.now() } ?? false }
            }
            /// Every file in flight is uploading, and the uploads running are exactly theirs (a cancelled one has
            /// ended): nothing is on its way between a runner and its tasks.
            func uploadsMatch() -> Bool {
                var uploading: Set<String> = []
                for batch in live() {
                    for entry in batch.runner.snapshot.entries {
                        switch entry.phase {
                        case .staging, .presigning: return false
                        case .uploading(let upload): uploading.insert(upload.target.uploadURL)
                        default: break
                        }
                    }
                }
                return uploading == Set(uploads.runningKeys)
            }
            // Read across runners one by one, a state can look settled for a moment while a hand-over between tasks
            // is under way: it must hold over a run of consecutive looks. The wait is long because a machine busy
            // with other suites can starve the tasks for seconds; what settled is checked below either way.
            var looks = 0
            await yieldUntil(timeout: .seconds(60)) {
                let settled = !timerDue() && uploadsMatch() && (inFlight() == capacity || !couldStart())
                looks = settled ? looks + 1 : 0
                return looks >= 5
            }
            let held = inFlight()
            #expect(uploadsMatch(), "seed \(seed) step \(step): tasks did not settle: \(live().map { b in b.runner.snapshot.entries.map { "\($0.fileId):\($0.state)" } }) running \(uploads.runningKeys)")
            #expect(shares.heldCount == held, "seed \(seed) step \(step): \(shares.heldCount) slots held for \(held) files in flight")
            #expect(held <= capacity)
            for tenant in ["a", "b", "c"] {
                #expect(shares.held(by: tenant) == tenantHeld(tenant), "seed \(seed) step \(step): tenant \(tenant)")
                #expect(tenantHeld(tenant) <= cap)
            }
            if couldStart() { #expect(held == capacity, "seed \(seed) step \(step): a slot sat free while a file could start") }
            let waiting = live().reduce(0) { $0 + $1.runner.snapshot.slotDemand(now: clock.now()).waiting }
            #expect(shares.waitingFiles == waiting, "seed \(seed) step \(step): waiting files")
        }
        for batch in live() { batch.runner.abandon() }
        #expect(shares.heldCount == 0 && shares.pendingCount == 0 && shares.waitingFiles == 0)
    }
}
