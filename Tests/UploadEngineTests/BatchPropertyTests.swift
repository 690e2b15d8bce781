import Foundation
import Testing
@testable import UploadEngine

/// Random operation sequences against the state machine, checking the invariants the contract promises after every
/// step: capacity never exceeded, `completed` exactly at transitions to idle, progress never backwards, and once
/// everything settles, one outcome per file.
@Suite struct BatchPropertyTests {
    private struct Run {
        var h: BatchHarness
        var random: JitterRandom
        let ids = ["a", "b", "c", "d", "e", "f"]
        var highWater: [String: Int64] = [:]

        init(seed: UInt64) {
            var random = JitterRandom(seed: seed)
            let interval = Duration.milliseconds(Int64.random(in: 0...300, using: &random))
            let concurrency = Int.random(in: 1...3, using: &random)
            h = BatchHarness(configure: {
                $0.limits.fileCountMax = 4
                $0.limits.fileSizeMax = 5000
                $0.progressInterval = interval
            }, concurrency: concurrency, seed: seed)
            self.random = random
        }

        mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func randomItem() -> FileItem {
            let id = pick(ids)
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return inline(id, size: 0)
            case 1: return inline(id, size: 6000)
            case 2, 3: return remote(id)
            default: return inline(id, size: Int.random(in: 1...4000, using: &random))
            }
        }

        /// Performs one random step; returns whether it was an upload call.
        mutating func step() -> Bool {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<15:
                let items = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomItem() }
                h.add(items, request: "r\(Int.random(in: 0..<3, using: &random))")
                for item in items where h.batch.state(of: item.fileId)?.isPending == true { highWater[item.fileId] = nil }
                return true
            case 15..<30:
                guard let next = h.stages.first else { break }
                let id = next.item.fileId
                if chance(10) { h.stage(id, error: UploadError(.sourceFetchFailed, "502")) }
                else if chance(5) { h.stage(id, error: UploadError(.sourceForbidden, "private address")) }
                else { h.stage(id, size: chance(5) ? 0 : Int64.random(in: 1...6000, using: &random)) }
            case 30..<45:
                guard !h.presigns.isEmpty else { break }
                let roll = Int.random(in: 0..<100, using: &random)
                let now = h.now
                h.answerPresign { files in
                    switch roll {
                    case 0..<10: return .failure(UploadError(.presignedURLFailed, "500"))
                    default:
                        return .success(Dictionary(uniqueKeysWithValues: files.enumerated().map { index, file in
                            let outcome: PresignOutcome = switch (roll + index) % 10 {
                            case 0: .refused(UploadError("ERR_POLICY", "no"))
                            case 1: .target(BatchHarness.target(file.fileId, expiresAt: now))
                            case 2: .target(BatchHarness.target(file.fileId, expiresAt: nil, url: "::bad::"))
                            default: .target(BatchHarness.target(file.fileId, expiresAt: now + .seconds(60)))
                            }
                            return (file.fileId, outcome)
                        }))
                    }
                }
            case 45..<60:
                guard let upload = h.uploads.randomElement(using: &random) else { break }
                h.progress(String(upload.transfer.staged.sha256.dropFirst(4)), sent: Int64.random(in: 0...upload.transfer.staged.size, using: &random))
            case 60..<75:
                guard let upload = h.uploads.first else { break }
                let id = String(upload.transfer.staged.sha256.dropFirst(4))
                let roll = Int.random(in: 0..<10, using: &random)
                h.finishUpload(id, error: roll < 6 ? nil : roll < 9 ? UploadError(.s3UploadFailed, "reset") : UploadError(.s3UploadFailed, "403", retryable: false))
            case 75..<85:
                h.advance(.milliseconds(Int64.random(in: 0...40_000, using: &random)))
            case 85..<90:
                let id = pick(ids)
                h.remove(id)
                highWater[id] = nil
            case 90..<96:
                h.retry(pick(ids))
            case 96..<98:
                h.setConcurrency(Int.random(in: 1...4, using: &random))
            default:
                if chance(30) {
                    h.clear()
                    highWater.removeAll()
                }
            }
            return false
        }
    }

    @Test(arguments: 0..<200)
    func invariantsHoldForRandomOperationSequences(seed: UInt64) {
        var run = Run(seed: seed)
        for _ in 0..<80 {
            let before = run.h.batch.status
            let firstEvent = run.h.events.count
            let wasAdd = run.step()
            let after = run.h.batch.status
            let stepEvents = Array(run.h.events[firstEvent...])

            #expect(run.h.batch.remainingCapacity >= 0, "capacity exceeded (seed \(seed))")
            // Each file's state is kept beside its phase, for loops that read it in place: the two never disagree.
            for entry in run.h.batch.entries {
                #expect(entry.state == entry.phase.state, "file \(entry.fileId)'s state left its phase (seed \(seed))")
            }
            let completions = stepEvents.filter(\.isCompletion).count
            let transitioned = before == .inProgress && after == .idle
            #expect(completions == (transitioned || (wasAdd && after == .idle) ? 1 : 0), "completed off a transition (seed \(seed))")
            if completions == 1 { #expect(stepEvents.last?.isCompletion == true) }

            for event in stepEvents {
                guard let id = event.fileId else { continue }
                if case .progress(let loaded, let total, let percent) = event.kind {
                    #expect(loaded >= run.highWater[id, default: 0], "progress went backwards (seed \(seed))")
                    #expect(percent == 100 ? loaded == total : percent < 100)
                    run.highWater[id] = loaded
                }
            }
            if !wasAdd {
                for id in run.ids {
                    let outcomes = stepEvents.filter { $0.fileId == id }.filter {
                        switch $0.kind {
                        case .rejected, .failed(_, _, false): true
                        default: false
                        }
                    }
                    #expect(outcomes.count <= 1, "two final outcomes for one file in one step (seed \(seed))")
                }
            }
        }
        settle(&run.h)
        #expect(run.h.batch.status == .idle)
        let result = run.h.batch.result
        let reported = result.successful.map(\.fileId) + result.rejected.map(\.fileId) + result.failed.map(\.fileId)
        #expect(reported.count == run.h.batch.count, "every file has exactly one outcome (seed \(seed))")
        for success in result.successful {
            #expect(run.h.kinds(of: success.fileId).contains(.uploaded(success.attachment)))
        }
        for failure in result.failed {
            let last = run.h.failures(of: failure.fileId).last
            #expect(last?.willRetry == false && last?.error.code.rawValue == failure.error.code)
        }
    }

    /// Lets everything in flight succeed and every backoff run out.
    private func settle(_ h: inout BatchHarness) {
        for _ in 0..<50 where h.batch.status == .inProgress {
            h.settleAll()
            h.advance(.seconds(120))
        }
    }
}
