import Foundation
import Testing
@testable import UploadEngine

/// `setConcurrency` and progress reporting.
@Suite struct ConcurrencyAndProgressTests {
    private func inFlight(_ h: BatchHarness) -> Int {
        h.stages.count + h.presigns.reduce(0) { $0 + $1.count } + h.uploads.count
    }

    @Test func theDefaultConcurrencyIsOneFileAtATime() {
        var h = BatchHarness()
        h.add([inline("a"), inline("b"), inline("c")])
        #expect(h.stages.map(\.item.fileId) == ["a"])
        h.stageAll(); h.presignAll()
        #expect(inFlight(h) == 1)
        h.finishUpload("a")
        #expect(h.stages.map(\.item.fileId) == ["b"])
    }

    @Test func raisingConcurrencyStartsQueuedFilesAtOnce() {
        var h = BatchHarness()
        h.add([inline("a"), inline("b"), inline("c")])
        h.setConcurrency(3)
        #expect(inFlight(h) == 3)
    }

    @Test func loweringConcurrencyNeverInterruptsFilesInFlight() {
        var h = BatchHarness(concurrency: 3)
        h.add([inline("a"), inline("b"), inline("c"), inline("d"), inline("e")])
        h.stageAll(); h.presignAll()
        h.setConcurrency(1)
        #expect(h.cancelled.isEmpty)
        #expect(h.uploads.count == 3)
        h.finishUpload("a")
        #expect(inFlight(h) == 2, "no new file starts until in-flight files drop below the new value")
        h.finishUpload("b"); h.finishUpload("c")
        #expect(h.stages.map(\.item.fileId) == ["d"])
    }

    @Test func progressIsThrottledToFourEventsPerSecond() {
        var h = BatchHarness()
        h.add([inline("f1", size: 1000)])
        h.stageAll(); h.presignAll()
        for step in 1...16 {
            h.now = h.now + .microseconds(62_500)
            h.progress("f1", sent: Int64(step * 50))
        }
        // 16 callbacks over one second: the first, then one per 250 ms.
        #expect(h.progressEvents(of: "f1").map(\.loaded) == [50, 250, 450, 650])
    }

    @Test func progressNeverGoesBackwardsAndEndsAtOneHundred() {
        var h = BatchHarness { $0.progressInterval = .zero }
        h.add([inline("f1", size: 1000)])
        h.stageAll(); h.presignAll()
        for sent in [100, 300, 200, 300, 999, 1000] as [Int64] { h.progress("f1", sent: sent) }
        h.finishUpload("f1")
        let events = h.progressEvents(of: "f1")
        #expect(events.map(\.loaded) == [100, 300, 999, 1000])
        #expect(events.map(\.percent) == [10, 30, 99, 100])
        #expect(events.allSatisfy { $0.total == 1000 })
        #expect(h.kinds(of: "f1").last.map { if case .uploaded = $0 { true } else { false } } == true)
    }

    @Test func progressOfARetriedAttemptDoesNotGoBelowWhatWasReported() {
        var h = BatchHarness { $0.progressInterval = .zero }
        h.add([inline("f1", size: 1000)])
        h.stageAll(); h.presignAll()
        h.progress("f1", sent: 600)
        h.finishUpload("f1", error: UploadError(.s3UploadFailed, "reset"))
        h.advance(.seconds(2))
        h.progress("f1", sent: 300)
        h.progress("f1", sent: 700)
        h.finishUpload("f1")
        #expect(h.progressEvents(of: "f1").map(\.loaded) == [600, 700, 1000])
    }

    @Test func aFileUploadedWithoutProgressCallbacksStillEndsAtOneHundred() {
        var h = BatchHarness()
        h.add([inline("f1", size: 10)])
        h.settleAll()
        #expect(h.progressEvents(of: "f1").map(\.percent) == [100])
    }
}
