import Testing
import TestSupport
@testable import Worker

@Suite(.timeLimit(.minutes(1))) struct OpenRecordsTests {
    @Test func aWaitForSomePartitionsEndsWhenTheirLastRecordClosesWhateverTheOthersHold() async {
        let open = OpenRecords()
        open.opened(1)
        open.opened(1)
        open.opened(2)
        let ended = Locked<Bool?>(nil)
        let waiter = Task {
            let emptied = await open.waitUntilEmpty([1], timeout: .seconds(30))
            ended.update { $0 = emptied }
        }
        open.closed(1)
        await Task.yield()
        #expect(ended.value == nil, "one record of partition 1 is still open")
        open.closed(1)
        await waitFor("the wait to end") { await waiter.value }
        #expect(ended.value == true, "partition 2's open record does not hold it up")
        #expect(open.count == 1)
    }

    @Test func aWaitGivesUpAtItsTimeoutAndAWaitForEverythingSeesEveryPartition() async {
        let open = OpenRecords()
        open.opened(3)
        #expect(await open.waitUntilEmpty(nil, timeout: .milliseconds(50)) == false)
        #expect(await open.waitUntilEmpty([4], timeout: .seconds(30)) == true, "nothing open there")
        open.closed(3)
        #expect(await open.waitUntilEmpty(nil, timeout: .seconds(30)) == true)
    }
}
