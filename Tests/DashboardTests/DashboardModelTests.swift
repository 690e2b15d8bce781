@testable import Dashboard
import Foundation
import OperatorTools
import Records
import Testing
import WireFormat

/// Folding events and jobs into batches: states, counts, bytes, repeats, the order of two topics.
@Suite struct DashboardModelTests {
    private func model(maxBatches: Int = 100) -> DashboardModel {
        DashboardModel(limits: DashboardLimits(maxBatches: maxBatches))
    }

    private func fold(_ events: [WatchedEvent], into model: inout DashboardModel) {
        for event in events { model.take(event: event, readAt: EventRecords.date(EventRecords.start)) }
    }

    @Test func progressThenUploadedCountsTheFileUploadedAtFullSize() throws {
        var model = model()
        fold([EventRecords.progress("b", "f1", loaded: 400, total: 1000, at: 10),
              EventRecords.progress("b", "f1", loaded: 900, total: 1000, at: 20)], into: &model)
        var file = try #require(model.batches["b"]?.file("f1"))
        #expect(file.state == .uploading && file.percent == 90 && file.loaded == 900 && file.total == 1000)
        #expect(model.batches["b"]?.isInProgress == true)
        fold([EventRecords.uploaded("b", "f1", size: 1000, at: 30)], into: &model)
        file = try #require(model.batches["b"]?.file("f1"))
        #expect(file.state == .uploaded && file.percent == 100 && file.loaded == 1000)
        #expect(file.attachment?.url == "http://store/f1")
        #expect(model.batches["b"]?.counts[.uploaded] == 1)
        #expect(model.batches["b"]?.isInProgress == false)
    }

    @Test func progressNeverGoesBackwards() throws {
        var model = model()
        fold([EventRecords.progress("b", "f1", loaded: 800, total: 1000), EventRecords.progress("b", "f1", loaded: 300, total: 1000)],
             into: &model)
        let file = try #require(model.batches["b"]?.file("f1"))
        #expect(file.loaded == 800 && file.percent == 80)
    }

    @Test func aRejectionShowsItsCodeAndAFailureWithARetryStaysPending() throws {
        var model = model()
        fold([EventRecords.rejected("b", "big", code: "ERR_FILE_SIZE_EXCEEDED"),
              EventRecords.failed("b", "flaky", code: "ERR_S3_UPLOAD_FAILED", attempt: 1, willRetry: true)], into: &model)
        let batch = try #require(model.batches["b"])
        #expect(batch.file("big")?.state == .rejected && batch.file("big")?.problem?.code == "ERR_FILE_SIZE_EXCEEDED")
        #expect(batch.file("flaky")?.state == .retrying && batch.isInProgress)
        #expect(batch.errorCodes == ["ERR_FILE_SIZE_EXCEEDED", "ERR_S3_UPLOAD_FAILED"])
        fold([EventRecords.failed("b", "flaky", code: "ERR_S3_UPLOAD_FAILED", attempt: 3, willRetry: false)], into: &model)
        #expect(model.batches["b"]?.file("flaky")?.state == .failed && model.batches["b"]?.file("flaky")?.attempt == 3)
        #expect(model.batches["b"]?.isInProgress == false)
    }

    @Test func batchCompletedSetsEveryFileItListsAndCountsUnlistedRejections() throws {
        var model = model()
        fold([EventRecords.progress("b", "a", loaded: 5, total: 10),
              EventRecords.completed("b", successful: ["a"], failed: ["c"], rejected: ["d"], rejectedTotal: 4)], into: &model)
        let batch = try #require(model.batches["b"])
        #expect(batch.file("a")?.state == .uploaded && batch.file("c")?.state == .failed && batch.file("d")?.state == .rejected)
        #expect(batch.counts[.rejected] == 4, "three older rejections counted but not listed")
        #expect(batch.drains == 1 && batch.lastKind == "batch.completed")
    }

    @Test func aRepeatedEventIdChangesNothing() throws {
        var model = model()
        let uploaded = EventRecords.uploaded("b", "f", size: 100, id: "same-id")
        fold([uploaded, uploaded], into: &model)
        #expect(model.batches["b"]?.timeline.count == 1)
        #expect(model.throughput.sources["worker-1"]?.values.map(\.files).reduce(0, +) == 1)
    }

    @Test func aBatchsTenantIsItsFirstJobsOrElseItsReceiverAndTheRowCarriesIt() throws {
        var model = model()
        let start = EventRecords.date(EventRecords.start)
        model.take(command: EventRecords.job("named", receiver: "uid-9", tenant: "acme", files: [("f1", "one.jpg", 10)]), at: start)
        model.take(command: EventRecords.job("named", receiver: "uid-9", tenant: "globex", files: [("f2", "two.jpg", 10)]), at: start)
        model.take(command: EventRecords.job("plain", receiver: "uid-3", files: [("f1", "one.jpg", 10)]), at: start)
        #expect(model.batches["named"]?.tenant == "acme", "a later job does not move the batch to another tenant")
        #expect(model.batches["plain"]?.tenant == "uid-3")
        var json = JSONWriter()
        BatchRowJSON.write(try #require(model.batches["named"]), into: &json)
        #expect(String(decoding: json.bytes, as: UTF8.self).contains(#""tenant":"acme""#))
    }

    @Test func aJobDeclaresQueuedFilesWithTheReceiverAndNeverUndoesWhatEventsSaid() throws {
        var model = model()
        fold([EventRecords.uploaded("b", "f1", size: 10, at: 50)], into: &model)
        model.take(command: EventRecords.job("b", receiver: "uid-9", files: [("f1", "one.jpg", 10), ("f2", "two.jpg", 20)]),
                   at: EventRecords.date(EventRecords.start))
        let batch = try #require(model.batches["b"])
        #expect(batch.receiverId == "uid-9" && batch.receiverType == "user" && batch.sender == "uid-7")
        #expect(batch.file("f1")?.state == .uploaded, "the event read first stands")
        #expect(batch.file("f2")?.state == .queued && batch.file("f2")?.total == 20 && batch.file("f2")?.name == "two.jpg")
        #expect(batch.timeline.map(\.kind) == ["job", "file.uploaded"], "in time order, though the job was read last")
        #expect(batch.lastKind == "file.uploaded")
    }

    @Test func aControlForAKnownBatchGoesInItsTimelineAndOneForAnUnknownBatchMakesNoRow() {
        var model = model()
        fold([EventRecords.failed("b", "f", code: "ERR_S3_UPLOAD_FAILED", attempt: 3, willRetry: false)], into: &model)
        model.take(command: .retry(batchId: "b", fileId: "f"), at: EventRecords.date(EventRecords.start + 100))
        model.take(command: .send(batchId: "elsewhere"), at: EventRecords.date(EventRecords.start + 100))
        #expect(model.batches["b"]?.timeline.last?.kind == "control.retry")
        #expect(model.batches["elsewhere"] == nil)
    }

    @Test func filesAndTimelineOfOneBatchAreBounded() throws {
        var limits = DashboardLimits(maxBatches: 10)
        limits.filesPerBatch = 3
        limits.timelinePerBatch = 4
        var model = DashboardModel(limits: limits)
        fold((0..<6).map { EventRecords.rejected("b", "f\($0)", code: "ERR_INVALID_FILE_OBJECT", at: Int64($0)) }, into: &model)
        let batch = try #require(model.batches["b"])
        #expect(batch.files.count == 3 && batch.untrackedFiles == 3)
        #expect(batch.timeline.count == 4 && batch.droppedTimeline == 2)
    }

    @Test func anInvalidJobEventAndItsDeadLetterMakeOneEntry() {
        var model = model()
        let invalid = EventRecords.event("job.invalid", batch: "bad-1",
                                         data: #""reason":"the record is not valid JSON","topic":"attache.jobs","partition":2,"offset":7,"dlq":"ok""#)
        fold([invalid], into: &model)
        model.take(deadLetter: DeadLetter(partition: 0, offset: 3, time: EventRecords.date(EventRecords.start), key: Data("bad-1".utf8),
                                          value: Data("not json".utf8), headers: [
                                              .init("attache.source.topic", "attache.jobs"), .init("attache.source.partition", "2"),
                                              .init("attache.source.offset", "7"), .init("attache.error", "the record is not valid JSON"),
                                          ]), readAt: Date())
        #expect(model.deadLetters.entries.count == 1)
        let entry = model.deadLetters.entries[0]
        #expect(entry.provenance == "attache.jobs/2/7" && entry.outcome == "ok" && entry.copy == "0/3" && entry.key == "bad-1")
        #expect(entry.preview == "not json")
        #expect(model.batches["bad-1"] == nil, "an invalid record is no batch")
    }

    @Test func changesNameTheBatchesTouchedAndStartOverOnceTaken() {
        var model = model()
        fold([EventRecords.uploaded("a", "f", size: 1), EventRecords.rejected("b", "f", code: "ERR_FILE_DATA_EMPTY")], into: &model)
        let changes = model.takeChanges()
        #expect(changes.batches == ["a", "b"] && changes.errors && changes.workers && changes.throughput)
        #expect(model.takeChanges().isEmpty)
    }
}
