import DevServices
import Foundation
import TestSupport
import Testing

/// The worker's transfer slots under more work than they hold (DESIGN §4 *Never stop polling*, §12 *Fair share*):
/// files waiting for a slot are not stalled, and jobs keep being read while every slot is busy, so another tenant's
/// file does not wait behind all of the first tenant's.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FairShareEndToEndTests {
    @Test func filesWaitingBehindFullSlotsNeitherStallNorHoldBackAnotherTenant() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let run = UUID().uuidString.prefix(6)
        let topic = "e2e.fair-\(run).jobs", events = "e2e.fair-\(run).events"
        let prefix = "fair-\(run)-"
        // Each 64 KiB upload trickles in for half a second: two slots take some 15 s for the 60 jobs, while the stall
        // timeout is 2 s and a stalled file is not retried.
        let trickle = environment.services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 128 * 1024),
                                                                target: .pathPrefix("/\(prefix)"))
        defer { environment.services.store.faults.remove(trickle) }
        let worker = try environment.startWorker(
            name: "worker-fair-\(run)", group: "e2e-fair-\(run)", jobsTopic: topic, eventsTopic: events,
            extra: ["ATTACHE_KAFKA_CREATE_TOPICS": "true", "ATTACHE_WORKER_MAX_TRANSFERS": "2",
                    "ATTACHE_UPLOAD_STALL_TIMEOUT": "2s", "ATTACHE_RETRY_MAX_ATTEMPTS": "1"])
        defer { worker.signal(SIGKILL) }
        _ = try await eventually("the worker's first assignment", timeout: .seconds(30)) {
            worker.standardError.contains("partitions assigned") ? true : nil
        }
        let crowd = (0..<60).map { "\(prefix)a\($0)" }
        try await Kcat.produce(brokers: environment.brokers, topic: topic, crowd.enumerated().map { index, batchId in
            (key: batchId, value: Jobs.upload(batchId: batchId, files: [
                Jobs.inline("f", name: "f.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 64 * 1024, seed: index)),
            ], send: "none", tenant: "a"))
        })
        _ = try await eventually("15 of tenant a's files uploaded", timeout: .seconds(60)) {
            try await environment.events(topic: events).count { $0.type == "attache.file.uploaded" } >= 15 ? true : nil
        }
        let single = "\(prefix)b0"
        try await Kcat.produce(brokers: environment.brokers, topic: topic, [(key: single, value: Jobs.upload(batchId: single, files: [
            Jobs.inline("f", name: "f.pdf", mimeType: "application/pdf", bytes: Jobs.bytes(magic: Jobs.pdf, size: 64 * 1024, seed: 99)),
        ], send: "none", tenant: "b"))])
        // Counted once b's job is on the topic, not when the test saw the 15th upload: reading the events back can
        // lag by seconds on a loaded machine, while a's files go on starting.
        let crowdStartedBefore = environment.services.store.faults.firings.count { $0.path.hasPrefix("/\(prefix)a") }
        let all = try await eventually("every batch completed", timeout: .seconds(120)) {
            let received = try await environment.events(topic: events)
            return Set(received.filter { $0.type == "attache.batch.completed" }.map(\.subject)).count == 61 ? received : nil
        }

        let failed = all.filter { $0.type == "attache.file.failed" }
        #expect(failed.isEmpty, "files failed: \(failed.map { "\($0.subject) \($0.errorCode ?? "?")" })")
        #expect(all.count { $0.type == "attache.file.uploaded" } == 61)
        // Upload requests in the order the store saw them start: b's began while most of a's still waited.
        let started = environment.services.store.faults.firings.filter { $0.path.hasPrefix("/\(prefix)") }.map(\.path)
        let singleStart = try #require(started.firstIndex { $0.hasPrefix("/\(single)/") })
        let crowdAfter = started[(singleStart + 1)...].count { $0.hasPrefix("/\(prefix)a") }
        // Behind all of a's waiting files, b's would have started after 60 - crowdStartedBefore more of them; with its
        // own share it starts at one of the next free slots, after the few a's that took the slots while its job was
        // read (two slots, a start every quarter second: a handful even with seconds of intake lag).
        let waiting = 60 - crowdStartedBefore
        try #require(waiting >= 20, "too few of a's files were still waiting when b's job came (\(waiting))")
        let crowdBetween = waiting - crowdAfter
        #expect(crowdBetween <= 12, "\(crowdBetween) of a's \(waiting) waiting files started between b's job and b's upload")
    }
}
