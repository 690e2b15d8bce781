import Foundation
import Testing
import WireFormat
@testable import UploadEngine

/// The snapshot codec: the durable model encoded and decoded, what it leaves out, and its bounds.
@Suite struct BatchSnapshotTests {
    private static func file(_ id: String, _ source: FileSource = .url("https://files.test/x.png"), mime: String = "image/png") -> FileItem {
        FileItem(fileId: id, name: "\(id).png", mimeType: mime, source: source)
    }

    private func roundTrip(_ batch: UploadBatch, generation: Int64 = 7) throws -> BatchSnapshot.Restored {
        let bytes = try #require(BatchSnapshot.encode(batch, writerGeneration: generation, maxBytes: 900 * 1024))
        return try BatchSnapshot.decode(bytes, configuration: batch.configuration)
    }

    /// A batch with one file in every settled state, one pending, a message sent and a caption out.
    private func mixedBatch() -> BatchHarness {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 }, concurrency: 1)
        h.batch.setMessageOptions(MessageOptions(send: .manual, caption: "Trip", metadata: ["trip": .int(42)], tags: ["t1"]))
        h.add([Self.file("up"), Self.file("bad", .data(Data())),
               Self.file("inline", .data(Data("hello".utf8))), Self.file("fail")])
        h.settleAll()  // up uploads; inline uploads next (concurrency 1)
        h.requestSend()
        h.answerPost()
        h.stage("fail", error: UploadError(.sourceFetchFailed, "HTTP 503", retryable: true))
        h.add([Self.file("late", .data(Data("bytes".utf8)))], request: "r2")
        h.batch.appliedThrough = 41
        return h
    }

    @Test func aRestoredBatchHasTheSameFilesResultSendsAndCounters() throws {
        let h = mixedBatch()
        var batch = h.batch
        batch.entries[batch.entries.count - 1].item.origin = RecordOrigin(partition: 2, offset: 41, index: 0)
        let restored = try roundTrip(batch)
        let copy = restored.batch
        #expect(restored.writerGeneration == 7)
        #expect(copy.result == batch.result, "uploaded, rejected and failed files with their errors")
        #expect(copy.attachments == batch.attachments)
        #expect(copy.count == batch.count && copy.remainingCapacity == batch.remainingCapacity)
        #expect(copy.sentMessages == batch.sentMessages && copy.captionSent)
        #expect(copy.messageOptions == batch.messageOptions)
        #expect(copy.eventSequence == batch.eventSequence && copy.stateVersion == batch.stateVersion)
        #expect(copy.appliedThrough == 41)
        #expect(copy.context == batch.context && copy.concurrency == batch.concurrency)
        #expect(copy.state(of: "late") == .queued, "a file in flight comes back queued, to resume")
    }

    /// A snapshot is owed when durable state changes (§4.1), not at every step of an upload: staging and presigning
    /// keep the file "pending", so only the job that added it and its upload's outcome are changes; a failure (its
    /// next attempt counted) is one too, and so is resuming a restored batch, recorded under its new owner.
    @Test func onlyDurableChangesMoveTheStateVersion() throws {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 2 }, concurrency: 2)
        h.add([Self.file("a"), Self.file("b")])
        let added = h.batch.stateVersion
        h.stageAll()
        h.presignAll()
        #expect(h.batch.stateVersion == added, "staged and presigned: still pending")
        #expect(try roundTrip(h.batch).batch.stateVersion == added)

        h.finishUpload("a")
        let uploaded = h.batch.stateVersion
        #expect(uploaded > added)
        h.finishUpload("b", error: UploadError(.s3UploadFailed, "HTTP 500", retryable: true))
        #expect(h.batch.stateVersion > uploaded, "a failure counts the next attempt")

        var restored = try roundTrip(h.batch).batch
        let before = restored.stateVersion
        _ = restored.resume(now: h.now.addingTimeInterval(60))
        #expect(restored.stateVersion > before, "resumed work is recorded again under the new owner")
    }

    @Test func anAttachmentKeepsTheEncryptionItsUploadAskedForThroughASnapshot() throws {
        var h = BatchHarness()
        h.add([Self.file("sealed"), Self.file("plain")])
        h.stageAll()
        h.answerPresign { files in
            .success(Dictionary(uniqueKeysWithValues: files.map { file in
                var target = BatchHarness.target(file.fileId, expiresAt: nil)
                if file.fileId == "sealed" { target.headers = [HTTPHeader("x-amz-server-side-encryption", "aws:kms")] }
                return (file.fileId, .target(target))
            }))
        }
        h.settleAll()
        #expect(h.batch.attachments.map(\.encryption) == ["aws:kms", nil])
        #expect(try roundTrip(h.batch).batch.attachments.map(\.encryption) == ["aws:kms", nil])
    }

    @Test func aPendingInlineFileKeepsItsRecordInsteadOfItsBytes() throws {
        var h = BatchHarness()
        var item = Self.file("f", .data(Data(repeating: 7, count: 4096)))
        item.origin = RecordOrigin(partition: 3, offset: 99, index: 2)
        h.add([item])
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        #expect(bytes.count < 1024, "the bytes are not in the snapshot")
        var restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        let effects = restored.resume(now: h.now)
        guard case .stage(_, let staged, _, _) = effects.actions.first else {
            Issue.record("the resumed file is staged again")
            return
        }
        #expect(staged.source == .recorded(RecordOrigin(partition: 3, offset: 99, index: 2), byteCount: 4096))
    }

    @Test func uploadedFilesStayUploadedAndResumeStartsOnlyPendingOnes() throws {
        var h = BatchHarness(concurrency: 2)
        h.add([Self.file("a"), Self.file("b")])
        h.stageAll()
        h.presignAll()
        h.finishUpload("a")
        var restored = try roundTrip(h.batch).batch
        let effects = restored.resume(now: h.now)
        let staged = effects.actions.compactMap { if case .stage(_, let item, _, _) = $0 { item.fileId } else { nil } }
        #expect(staged == ["b"])
        #expect(restored.state(of: "a") == .uploaded)
        #expect(effects.events.isEmpty, "no second file.uploaded")
    }

    @Test func aSendUnderWayIsResumedWithTheSameMuids() throws {
        var h = BatchHarness(configure: { $0.limits.attachmentsPerMessage = 1 }, concurrency: 2)
        h.add([Self.file("a"), Self.file("b")])
        h.settleAll()
        let planned = h.posts.map(\.message.muid)
        h.answerPost()
        let remaining = h.posts.map(\.message.muid)
        var restored = try roundTrip(h.batch).batch
        #expect(restored.isSending)
        let effects = restored.resume(now: h.now)
        let posted = effects.actions.compactMap { if case .post(_, let message) = $0 { message.muid } else { nil } }
        #expect(posted == remaining, "the next owner posts what was left, under the muid it had")
        #expect(!posted.contains(planned[0]), "the message that went out is not posted again")
    }

    @Test func aSendsPlanIsRecordedBeforeItsFirstPost() {
        var h = BatchHarness()
        h.recordsPlansAtOnce = false
        h.add([Self.file("a")])
        h.settleAll()
        #expect(h.posts.isEmpty, "nothing is posted before the plan is in the changelog")
        #expect(h.plansToRecord.count == 1)
        #expect(h.batch.isSending)
        #expect(h.batch.isQuietForHandover, "waiting for the record is no post under way: a handover need not wait for it")
        h.recordPlan()
        #expect(h.posts.map(\.message.fileIds) == [["a"]])
    }

    @Test func aNewOwnerPostsThePlanAsRecordedNotANewOne() throws {
        // Two messages of one file each; a third file is uploaded after the plan was made.
        var h = BatchHarness(configure: { $0.limits.attachmentsPerMessage = 1; $0.limits.fileCountMax = 3 }, concurrency: 2)
        h.add([Self.file("a"), Self.file("b")])
        h.settleAll()
        h.answerPost()  // "a" went out
        h.add([Self.file("c")], request: "r2")
        h.stageAll(); h.presignAll()
        let snapshot = try roundTrip(h.batch).batch
        var restored = snapshot
        let effects = restored.resume(now: h.now)
        let posted = effects.actions.compactMap { if case .post(_, let message) = $0 { message } else { nil } }
        #expect(posted.map(\.fileIds) == [["b"]], "the plan's next message, not a new plan with c")
        #expect(posted.first?.muid == h.batch.sending.run?.plan[1].muid)
    }

    @Test func restoredFilesKeepTheirStatesBesideTheirPhases() throws {
        var h = BatchHarness()
        h.add([Self.file("a")])
        h.settleAll()
        h.add([Self.file("b"), Self.file("c")], request: "r2")
        h.stage("b", error: UploadError(.sourceForbidden, "private address"))
        let restored = try roundTrip(h.batch).batch
        #expect(h.batch.entries.map(\.state) == [.uploaded, .rejected, .staging])
        // A file that was being staged is queued to be staged again by the batch's next owner.
        #expect(restored.entries.map(\.state) == [.uploaded, .rejected, .queued])
        for entry in restored.entries {
            #expect(entry.state == entry.phase.state, "file \(entry.fileId) restored with a state its phase does not have")
        }
    }

    @Test func presignedURLsNeverEnterASnapshot() throws {
        var h = BatchHarness()
        h.add([Self.file("a")])
        h.settleAll()
        let text = String(decoding: try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024)), as: UTF8.self)
        #expect(!text.contains("X-Amz-Signature"))
        #expect(text.contains("https://store.test/a"), "the object's URL without its query, for removing it later")
    }

    @Test func aLargeBatchFitsByKeepingFewerRejectionsButTheirCount() throws {
        var h = BatchHarness()
        let long = String(repeating: "x", count: 120)
        h.add((0..<100).map { FileItem(fileId: "r\($0)-" + long, name: String(repeating: "n", count: 200), source: .data(Data())) })
        let full = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        let small = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: full.count / 4))
        #expect(small.count <= full.count / 4)
        let restored = try BatchSnapshot.decode(small, configuration: h.batch.configuration).batch
        #expect(restored.result.rejectedTotal == 100)
        #expect(restored.result.rejected.count < 100)
    }

    @Test func rejectedFilesWithLongSourcesAreAllKeptWithoutTheirSources() throws {
        var h = BatchHarness()
        let longURL = "https://files.test/" + String(repeating: "\"", count: 8 * 1024 - 19)
        h.add((0..<100).map { FileItem(fileId: "r\($0)", name: "r.png", declaredSize: 0, source: .url(longURL)) })
        let bound = 900 * 1024
        let bytes = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: bound))
        #expect(bytes.count <= bound)
        let restored = try BatchSnapshot.decode(bytes, configuration: h.batch.configuration).batch
        #expect(restored.result.rejected.count == 100, "every rejection the result lists is kept")
        #expect(!String(decoding: bytes, as: UTF8.self).contains(longURL.suffix(100)), "without the sources")
    }

    @Test func aBatchOfManyUploadedFilesFitsByLeavingTheirSourcesOut() throws {
        var h = BatchHarness(configure: { $0.limits.fileCountMax = 200 }, concurrency: 8)
        let longURL = "https://files.test/" + String(repeating: "p", count: 2000)
        h.add((0..<100).map { FileItem(fileId: "u\($0)", name: "u\($0).png", mimeType: "image/png", source: .url(longURL + "\($0)")) })
        h.settleAll()
        h.add([FileItem(fileId: "pending", name: "p.png", mimeType: "image/png", source: .url(longURL))], request: "r2")
        let full = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: 900 * 1024))
        let bound = full.count / 2
        let small = try #require(BatchSnapshot.encode(h.batch, writerGeneration: 1, maxBytes: bound))
        #expect(small.count <= bound)
        let restored = try BatchSnapshot.decode(small, configuration: h.batch.configuration).batch
        #expect(restored.attachments == h.batch.attachments, "uploaded files stay uploaded without their sources")
        #expect(restored.state(of: "pending") == .queued)
        var resumed = restored
        let staged = resumed.resume(now: h.now).actions.compactMap { if case .stage(_, let item, _, _) = $0 { item.source } else { nil } }
        #expect(staged == [.url(longURL)], "a pending file keeps its source")
    }

    @Test(arguments: [
        #"[]"#, #"{"v":2}"#, #"{"v":1,"batchId":"b"}"#,
        #"{"v":1,"batchId":"b","receiver":{"id":"u","type":"robot"},"concurrency":1,"message":{"send":"auto"},"files":[]}"#,
    ])
    func aMalformedSnapshotIsRefusedWithTheFieldItGotWrong(text: String) {
        #expect(throws: BatchSnapshot.DecodingError.self) {
            try BatchSnapshot.decode(Array(text.utf8), configuration: EngineConfiguration())
        }
    }
}
