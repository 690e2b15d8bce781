@testable import S3
import Synchronization
import Testing

/// A multipart upload's progress: the sum of each part's most sent, never backwards, and a wait's repeat of it only
/// while no part is at work — a part that hangs must not have its silence covered by another part's wait.
@Suite struct S3MultipartProgressTests {
    @Test func aWaitRepeatsTheSumOnlyWhileNoPartIsAtWork() async throws {
        let reports = Mutex<[Int64]>([])
        let progress = S3MultipartProgress(total: 100) { sent, _ in reports.withLock { $0.append(sent) } }
        progress.record(part: 1, sent: 40)

        try await progress.working {
            progress.waiting()
            progress.record(part: 2, sent: 10)
            progress.waiting()
        }
        #expect(reports.withLock { $0 } == [40, 50], "a part at work: its own reports only")

        progress.waiting()
        #expect(reports.withLock { $0 } == [40, 50, 50], "nothing at work: the wait repeats the sum")

        await #expect(throws: CancellationError.self) { try await progress.working { throw CancellationError() } }
        progress.waiting()
        #expect(reports.withLock { $0 } == [40, 50, 50, 50], "a part that failed is no longer at work")
    }
}
