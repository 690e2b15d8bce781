import Foundation
import Testing
@testable import UploadEngine

/// The contract's bounds on what a batch holds and reports (`docs/contract.md`, "Bounds"): however many files
/// records bring, a batch keeps the 100 most recent rejections and counts the rest, and intake costs O(files).
@Suite struct BatchBoundsTests {
    /// `count` files with ids `prefix-0…`, every one rejected at intake (empty inline data).
    private func emptyFiles(_ prefix: String, count: Int) -> [FileItem] {
        (0..<count).map { inline("\(prefix)-\($0)", size: 0) }
    }

    @Test func theResultListsTheHundredMostRecentRejectionsAndCountsThemAll() throws {
        var h = BatchHarness()
        for job in 0..<3 {
            h.add(emptyFiles("j\(job)", count: 100), request: "r\(job)")
        }
        let result = try #require(h.completions.last)
        #expect(result.rejected.count == UploadResult.rejectedLimit)
        #expect(result.rejectedTotal == 300)
        #expect(result.rejected.map(\.fileId) == (0..<100).map { "j2-\($0)" }, "the newest, in input order")
        #expect(h.batch.count == 300, "count still reports every rejected file")
    }

    @Test func aBatchFedManyJobsHoldsNoMoreThanItsCapacityAndTheRecentRejections() {
        var h = BatchHarness { $0.limits.fileCountMax = 10 }
        for job in 0..<50 {
            // Each job brings 100 files: 10 fit the first time, every other one is over capacity.
            h.add((0..<100).map { inline("j\(job)-\($0)") }, request: "r\(job)")
            h.settleAll()
        }
        #expect(h.batch.entries.count <= 10 + UploadResult.rejectedLimit)
        #expect(h.batch.count == 5000)
        #expect(h.batch.result.successful.count == 10)
        #expect(h.batch.result.rejectedTotal == 4990)
        #expect(h.batch.result.rejected.allSatisfy { $0.error.code == UploadErrorCode.fileCountExceeded.rawValue })
    }

    @Test func aRejectionLaterThanIntakeCountsAsRecent() throws {
        var h = BatchHarness()
        h.add([remote("late")])
        h.add(emptyFiles("early", count: 100), request: "r2")
        h.stage("late", size: 0)
        let result = try #require(h.completions.last)
        #expect(result.rejectedTotal == 101)
        #expect(result.rejected.contains { $0.fileId == "late" }, "rejected last, so kept")
        #expect(!result.rejected.contains { $0.fileId == "early-0" }, "the oldest rejection gave way")
    }

    @Test func aFileReplacingARejectedIdIsTakenInAndTheRejectionLeaves() {
        var h = BatchHarness()
        h.add([inline("f1", size: 0)])
        h.add([inline("f1")], request: "r2")
        #expect(h.batch.state(of: "f1") == .staging)
        #expect(h.batch.count == 1)
        #expect(h.batch.result.rejectedTotal == 0)
    }

    @Test func theDirectoryAgreesWithTheFilesAfterEveryKindOfChange() {
        var h = BatchHarness(configure: { $0.limits.fileCountMax = 5; $0.retry.maxAttempts = 1 }, concurrency: 2)
        func check(_ step: String) {
            let live = h.batch.entries.filter { $0.state != .rejected }
            #expect(h.batch.directory.live == Dictionary(uniqueKeysWithValues: live.map { ($0.fileId, $0.slot) }), "\(step)")
            #expect(h.batch.directory.rejectedCount == h.batch.entries.count(where: { $0.state == .rejected }), "\(step)")
            #expect(h.batch.remainingCapacity == 5 - live.count, "\(step)")
        }
        h.add([inline("a"), inline("b"), inline("a"), inline("c", size: 0), remote("d")])
        check("intake")
        h.stage("a"); h.stage("b", size: 0)
        check("a late rejection")
        h.presignAll(); h.finishUpload("a", error: UploadError(.s3UploadFailed, "reset"))
        check("a failure")
        h.add([inline("a", size: 5), inline("c"), inline("b")], request: "r2")
        check("re-used ids")
        h.remove("c")
        check("remove")
        h.settleAll()
        h.add(emptyFiles("x", count: 150), request: "r3")
        check("a trim")
        h.clear()
        check("clear")
        #expect(h.batch.count == 0)
    }

    /// Entries the batch visits while taking in `count` files at once, with room and concurrency for all of them.
    private func visits(takingIn count: Int) -> Int {
        var h = BatchHarness(configure: { $0.limits.fileCountMax = count }, concurrency: count)
        h.add((0..<count).map { remote("f\($0)") })
        #expect(h.stages.count == count)
        return h.batch.entryVisits
    }

    @Test func takingInAHundredFilesVisitsEachOfThemAFewTimesNotOncePerFile() {
        let hundred = visits(takingIn: 100)
        let twoHundred = visits(takingIn: 200)
        #expect(hundred <= 5 * 100, "a constant number of passes, not one pass per file")
        #expect(twoHundred <= hundred * 5 / 2, "linear in the file count: \(hundred) → \(twoHundred)")
    }

    @Test func rejectionsReplacedJobAfterJobKeepTheRejectionQueueBounded() {
        var h = BatchHarness()
        for job in 0..<30 {
            h.add(emptyFiles("same", count: 100), request: "r\(job)")
        }
        #expect(h.batch.count == 100, "each job's rejections replace the last job's")
        #expect(h.batch.directory.rejectionQueueLength <= 2 * 100 + 64)
    }
}
