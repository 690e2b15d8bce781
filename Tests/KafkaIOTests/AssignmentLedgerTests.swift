import Testing
@testable import KafkaIO

@Suite struct AssignmentLedgerTests {
    private let jobs0 = TopicPartition("jobs", 0)
    private let jobs1 = TopicPartition("jobs", 1)

    private func record(_ partition: TopicPartition, _ offset: Int64) -> KafkaRecord {
        KafkaRecord(topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: nil,
                    headers: [], timestampMilliseconds: nil)
    }

    @Test func theCommittedPositionIsWhereTheAssignmentStartedUntilTheBrokerConfirmsOne() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        #expect(ledger.committedPositions.map(\.1) == [nil, nil], "nothing delivered: not known yet")
        let delivered = ledger.accept([record(jobs0, 40), record(jobs0, 41), record(jobs0, 42)])
        #expect(ledger.committedPositions.map(\.1) == [40, nil])
        ledger.finish(delivered[0].position)
        ledger.finish(delivered[1].position)
        let sent = ledger.takeCommitPositions(.changed)
        #expect(sent.map(\.1) == [42])
        #expect(ledger.committedPositions.first?.1 == 40, "sent is not committed until the broker says so")
        ledger.commitConfirmed(sent)
        #expect(ledger.committedPositions.first?.1 == 42)
        ledger.release([jobs0])
        #expect(ledger.committedPositions.map(\.0) == [jobs1], "a partition given up is not reported")
    }

    @Test func readingGoesOnAfterTheLastDeliveredRecordWhateverIsFinished() {
        var ledger = AssignmentLedger()
        let jobs2 = TopicPartition("jobs", 2)
        ledger.assign([jobs0, jobs1, jobs2])
        #expect(ledger.readPositions.isEmpty, "nothing delivered: no position of this member's own")
        let delivered = ledger.accept([record(jobs0, 40), record(jobs0, 41), record(jobs1, 7)])
        ledger.finish(delivered[0].position)
        #expect(ledger.readPositions.map(\.0) == [jobs0, jobs1])
        #expect(ledger.readPositions.map(\.1) == [42, 8], "the next record to read, not the commit position (41)")
        ledger.beginRevoke([jobs1])
        #expect(ledger.readPositions.map(\.0) == [jobs0], "a partition on its way out is not read again")
    }

    @Test func progressSaysHowManyRecordsArePastTheCommittedOffset() {
        #expect(PartitionProgress(partition: jobs0, committed: 40, end: 45).lag == 5)
        #expect(PartitionProgress(partition: jobs0, committed: 45, end: 40).lag == 0, "an end from an older fetch never makes it negative")
        #expect(PartitionProgress(partition: jobs0, committed: nil, end: 45).lag == nil)
        #expect(PartitionProgress(partition: jobs0, committed: 40, end: nil).lag == nil)
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
            ledger.finish(delivered.first { $0.topicPartition == jobs0 && $0.offset == offset }!.position)
        }
        let positions = ledger.takeCommitPositions(.all)
        #expect(positions.map(\.0) == [jobs0, jobs1])
        #expect(positions.map(\.1) == [2, 7])
    }

    @Test func anUnchangedPositionIsNotSentTwiceUnlessAskedFor() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let delivered = ledger.accept([record(jobs0, 0)])
        ledger.finish(delivered[0].position)
        let first = ledger.takeCommitPositions(.changed)
        let second = ledger.takeCommitPositions(.changed)
        let forced = ledger.takeCommitPositions(.all)
        #expect(first.map(\.1) == [1])
        #expect(second.isEmpty)
        #expect(forced.map(\.1) == [1])
    }

    @Test func aFailedCommitIsSentAgain() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        ledger.finish(ledger.accept([record(jobs0, 0)])[0].position)
        let sent = ledger.takeCommitPositions(.changed)
        ledger.commitFailed(sent)
        let resent = ledger.takeCommitPositions(.changed)
        #expect(resent.map(\.1) == [1])
    }

    @Test func aRevokeSendsAgainWhatTheBrokerHasNotConfirmed() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 0), record(jobs1, 0)])
        delivered.forEach { ledger.finish($0.position) }
        let sent = ledger.takeCommitPositions(.changed)
        #expect(sent.map(\.1) == [1, 1])
        // jobs0's answer came back; jobs1's commit is still in flight (and may yet fail).
        ledger.commitConfirmed([sent[0]])
        #expect(ledger.takeCommitPositions(.changed).isEmpty, "the periodic commit does not resend what is in flight")
        let atRevoke = ledger.takeCommitPositions(.unconfirmed)
        #expect(atRevoke.map(\.0) == [jobs1], "a revoke does not release a partition on an unanswered commit")
        ledger.commitConfirmed(atRevoke)
        #expect(ledger.takeCommitPositions(.unconfirmed).isEmpty)
    }

    @Test func aFailedCommitAfterAConfirmedOneFallsBackToTheConfirmedPosition() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let delivered = ledger.accept([record(jobs0, 0), record(jobs0, 1)])
        ledger.finish(delivered[0].position)
        ledger.commitConfirmed(ledger.takeCommitPositions(.changed))
        ledger.finish(delivered[1].position)
        let second = ledger.takeCommitPositions(.changed)
        #expect(second.map(\.1) == [2])
        ledger.commitFailed(second)
        #expect(ledger.takeCommitPositions(.changed).map(\.1) == [2], "sent again")
    }

    @Test func aRecordDeliveredBeforeARevokeIsNoLongerOwned() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 0), record(jobs1, 0)])
        #expect(delivered.allSatisfy { ledger.owns($0) })
        ledger.beginRevoke([jobs0])
        #expect(!ledger.owns(delivered[0]), "taken from the buffer before the revoke, applied after it: not ours")
        #expect(ledger.owns(delivered[1]))
        ledger.release([jobs0])
        ledger.assign([jobs0])
        #expect(!ledger.owns(delivered[0]), "a later assignment of the same partition does not own it either")
    }

    @Test func finishingARecordFromAnEarlierAssignmentIsIgnored() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0])
        let old = ledger.accept([record(jobs0, 0)])[0]
        ledger.release([jobs0])
        ledger.assign([jobs0])
        let fresh = ledger.accept([record(jobs0, 0), record(jobs0, 1)])
        #expect(fresh.map(\.offset) == [0, 1])
        let staleFinish = ledger.finish(old.position)
        let before = ledger.takeCommitPositions(.all)
        let freshFinish = ledger.finish(fresh[0].position)
        let after = ledger.takeCommitPositions(.all)
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
        ledger.finish(delivered[0].position)
        ledger.finish(delivered[1].position)
        let positions = ledger.takeCommitPositions(of: [jobs0], .changed)
        ledger.release([jobs0])
        let afterRelease = ledger.finish(delivered[0].position)
        #expect(duringRevoke.isEmpty)
        #expect(positions.map(\.1) == [2])
        #expect(ledger.assignment.isEmpty)
        #expect(afterRelease == false)
    }

    @Test func aPartitionWithoutProgressIsLeftOutOfBackgroundCommitsButNotOutOfExplicitOnes() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 3), record(jobs0, 4), record(jobs1, 8)])
        ledger.finish(delivered[0].position)
        let background = ledger.takeCommitPositions(.changed)
        let explicit = ledger.takeCommitPositions(.all)
        #expect(background.map(\.0) == [jobs0])
        #expect(background.map(\.1) == [4])
        #expect(explicit.map(\.1) == [4, 8])
    }

    @Test func commitPositionsCanBeLimitedToSomePartitions() {
        var ledger = AssignmentLedger()
        ledger.assign([jobs0, jobs1])
        let delivered = ledger.accept([record(jobs0, 3), record(jobs1, 4)])
        ledger.finish(delivered[0].position)
        ledger.finish(delivered[1].position)
        let limited = ledger.takeCommitPositions(of: [jobs1], .changed)
        let rest = ledger.takeCommitPositions(.changed)
        #expect(limited.map(\.0) == [jobs1])
        #expect(rest.map(\.0) == [jobs0])
    }
}
