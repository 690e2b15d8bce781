import Testing
@testable import KafkaIO

@Suite struct AssignmentLedgerTests {
    private let jobs0 = TopicPartition("jobs", 0)
    private let jobs1 = TopicPartition("jobs", 1)

    private func record(_ partition: TopicPartition, _ offset: Int64) -> KafkaRecord {
        KafkaRecord(topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: nil,
                    headers: [], timestampMilliseconds: nil)
    }

    @Test func recordsOfPartitionsNotOwnedAreDropped() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let accepted = ledger.accept([record(jobs0, 0), record(jobs1, 0), record(jobs0, 1)])
        #expect(accepted.map(\.offset) == [0, 1])
        #expect(accepted.allSatisfy { $0.topicPartition == jobs0 })
    }

    @Test func aRepeatedOffsetIsDeliveredOnlyOnce() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let first = ledger.accept([record(jobs0, 0), record(jobs0, 1)])
        let again = ledger.accept([record(jobs0, 1), record(jobs0, 2)])
        #expect(first.map(\.offset) == [0, 1])
        #expect(again.map(\.offset) == [2])
    }

    @Test func finishingOutOfOrderCommitsTheContiguousPosition() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept((0..<5).map { record(jobs0, $0) } + [record(jobs1, 7)])
        for offset in [0, 1, 3] as [Int64] {
            ledger.finish(delivered.first { $0.topicPartition == jobs0 && $0.offset == offset }!)
        }
        let positions = ledger.takeCommitPositions(onlyChanged: false)
        #expect(positions.map(\.0) == [jobs0, jobs1])
        #expect(positions.map(\.1) == [2, 7])
    }

    @Test func anUnchangedPositionIsNotSentTwiceUnlessAskedFor() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let delivered = ledger.accept([record(jobs0, 0)])
        ledger.finish(delivered[0])
        let first = ledger.takeCommitPositions(onlyChanged: true)
        let second = ledger.takeCommitPositions(onlyChanged: true)
        let forced = ledger.takeCommitPositions(onlyChanged: false)
        #expect(first.map(\.1) == [1])
        #expect(second.isEmpty)
        #expect(forced.map(\.1) == [1])
    }

    @Test func aFailedCommitIsSentAgain() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        ledger.finish(ledger.accept([record(jobs0, 0)])[0])
        let sent = ledger.takeCommitPositions(onlyChanged: true)
        ledger.commitFailed(sent)
        let resent = ledger.takeCommitPositions(onlyChanged: true)
        #expect(resent.map(\.1) == [1])
    }

    @Test func finishingARecordFromAnEarlierAssignmentIsIgnored() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let old = ledger.accept([record(jobs0, 0)])[0]
        ledger.release([jobs0])
        ledger.assign([jobs0])
        let fresh = ledger.accept([record(jobs0, 0), record(jobs0, 1)])
        #expect(fresh.map(\.offset) == [0, 1])
        let staleFinish = ledger.finish(old)
        let before = ledger.takeCommitPositions(onlyChanged: false)
        let freshFinish = ledger.finish(fresh[0])
        let after = ledger.takeCommitPositions(onlyChanged: false)
        #expect(staleFinish == false)
        #expect(before.map(\.1) == [0])
        #expect(freshFinish)
        #expect(after.map(\.1) == [1])
    }

    @Test func aRevokingPartitionTakesNoNewRecordsButStillCountsFinishes() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let delivered = ledger.accept([record(jobs0, 0), record(jobs0, 1)])
        ledger.beginRevoke([jobs0])
        let duringRevoke = ledger.accept([record(jobs0, 2)])
        ledger.finish(delivered[0])
        ledger.finish(delivered[1])
        let positions = ledger.takeCommitPositions(of: [jobs0], onlyChanged: true)
        ledger.release([jobs0])
        let afterRelease = ledger.finish(delivered[0])
        #expect(duringRevoke.isEmpty)
        #expect(positions.map(\.1) == [2])
        #expect(ledger.assignment.isEmpty)
        #expect(afterRelease == false)
    }

    @Test func aPartitionWithoutProgressIsLeftOutOfBackgroundCommitsButNotOutOfExplicitOnes() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 3), record(jobs0, 4), record(jobs1, 8)])
        ledger.finish(delivered[0])
        let background = ledger.takeCommitPositions(onlyChanged: true)
        let explicit = ledger.takeCommitPositions(onlyChanged: false)
        #expect(background.map(\.0) == [jobs0])
        #expect(background.map(\.1) == [4])
        #expect(explicit.map(\.1) == [4, 8])
    }

    @Test func commitPositionsCanBeLimitedToSomePartitions() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 3), record(jobs1, 4)])
        ledger.finish(delivered[0])
        ledger.finish(delivered[1])
        let limited = ledger.takeCommitPositions(of: [jobs1], onlyChanged: true)
        let rest = ledger.takeCommitPositions(onlyChanged: true)
        #expect(limited.map(\.0) == [jobs1])
        #expect(rest.map(\.0) == [jobs0])
    }
}
