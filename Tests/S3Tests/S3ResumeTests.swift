import Foundation
@testable import S3
import Testing
import UploadEngine

import HTTPTransport
import TestSupport
import WireFormat

/// Multipart uploads that outlive their attempt (DESIGN §12), against moto: a recorded upload is never aborted by
/// a failure or a cancel, the next attempt sends only the missing parts into it, and an upload that cannot be
/// resumed — other bytes, or gone from storage — is replaced by a new one, the old one aborted.
@Suite(.motoServer, .timeLimit(.minutes(2))) struct S3ResumeTests {
    static let mebibyte = S3StorageTests.mebibyte
    /// 16 MiB in 5 MiB parts: parts 1–3 of 5 MiB, part 4 of 1 MiB; one part at a time.
    static let size = 16 * mebibyte

    /// What the storage reported, in order.
    final class Reports: Sendable {
        let stored = Locked<[MultipartUpload]>([])
        let progress = Locked<[Int64]>([])
    }

    /// Uploads `transfer` while recording it, as the engine does.
    static func upload(_ setup: S3StorageTests.Setup, _ transfer: UploadTransfer, into reports: Reports) async throws {
        try await setup.storage.upload(
            transfer, progress: { sent, _ in reports.progress.update { $0.append(sent) } },
            stored: { upload in reports.stored.update { $0.append(upload) } })
    }

    /// The source's version staging tells for the first attempt.
    static let version = "16777216@1700000000.000000001"

    /// The first attempt: parts 1 and 2 stored, then cancelled while part 3 hangs.
    static func interruptedAfterTwoParts() async throws -> (S3StorageTests.Setup, MultipartUpload) {
        let setup = try await S3StorageTests.setUp(
            size: size, configuration: S3StorageTests.configuration(partConcurrency: 1)
        ) { call in
            call == .init(operation: .part(3), attempt: 1) ? .hang : nil
        }
        let reports = Reports()
        var transfer = setup.transfer
        transfer.staged.sourceVersion = version
        let first = Task { [transfer] in try await upload(setup, transfer, into: reports) }
        await waitFor("part 3 to hang") { await setup.transport.waitUntilHanging() }
        first.cancel()
        _ = await first.result
        let recorded = try #require(reports.stored.value.last)
        #expect(reports.stored.value.map(\.parts.count) == [0, 1, 2], "reported when created and as each part is stored")
        #expect(recorded.sha256 == setup.transfer.staged.sha256 && recorded.key == setup.key)
        #expect(reports.stored.value.allSatisfy { $0.sourceVersion == version }, "the source's version, from its creation on")
        #expect(setup.transport.count(.abort) == 0, "a recorded upload waits for the next attempt")
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture) == [recorded.uploadId])
        return (setup, recorded)
    }

    @Test func theNextAttemptSendsOnlyTheMissingPartsIntoTheSameUpload() async throws {
        let (setup, recorded) = try await Self.interruptedAfterTwoParts()
        defer { setup.fixture.cleanUp() }
        var transfer = setup.transfer
        transfer.multipart = recorded
        let reports = Reports()

        try await Self.upload(setup, transfer, into: reports)

        #expect(setup.transport.count(.create) == 1, "no new upload")
        #expect(setup.transport.count(.part(1)) == 1 && setup.transport.count(.part(2)) == 1)
        #expect(setup.transport.count(.part(3)) == 2 && setup.transport.count(.part(4)) == 1)
        #expect(reports.progress.value.first == Int64(10 * Self.mebibyte), "progress starts at the bytes stored")
        #expect(zip(reports.progress.value, reports.progress.value.dropFirst()).allSatisfy { $0 < $1 })
        #expect(reports.progress.value.last == Int64(Self.size))
        #expect(reports.stored.value.last?.parts.map(\.number) == [1, 2, 3, 4])
        #expect(reports.stored.value.allSatisfy { $0.uploadId == recorded.uploadId })
        #expect(try await S3StorageTests.stored(setup).body == setup.bytes)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
    }

    /// The same bytes, touched since: the upload is resumed (the digest matched) and records the version staged now,
    /// which the attempt after it can then take the digest by.
    @Test func aResumedUploadRecordsTheSourceVersionItWasResumedWith() async throws {
        let (setup, recorded) = try await Self.interruptedAfterTwoParts()
        defer { setup.fixture.cleanUp() }
        var transfer = setup.transfer
        transfer.multipart = recorded
        transfer.staged.sourceVersion = "16777216@1700000060.000000000"
        let reports = Reports()

        try await Self.upload(setup, transfer, into: reports)

        #expect(setup.transport.count(.create) == 1, "resumed")
        #expect(reports.stored.value.map(\.parts.count) == [2, 3, 4], "recorded at once with the new version, then as parts 3 and 4 are stored")
        #expect(reports.stored.value.allSatisfy { $0.sourceVersion == "16777216@1700000060.000000000" })
        #expect(try await S3StorageTests.stored(setup).body == setup.bytes)
    }

    @Test func otherBytesStartANewUploadAndTheOldOneIsAborted() async throws {
        let (setup, recorded) = try await Self.interruptedAfterTwoParts()
        defer { setup.fixture.cleanUp() }
        let changed = S3IntegrationFixture.randomBytes(Self.size)
        var transfer = setup.transfer
        transfer.staged = StagedFile(path: try setup.fixture.file(changed).path, size: Int64(Self.size),
                                     sha256: SHA256Hasher.hex(of: changed), mimeType: "video/mp4")
        transfer.multipart = recorded
        let reports = Reports()

        try await Self.upload(setup, transfer, into: reports)

        #expect(setup.transport.count(.abort) == 1)
        #expect(setup.transport.count(.create) == 2)
        #expect(setup.transport.count(.part(1)) == 2, "from part 1")
        #expect(reports.stored.value.first?.uploadId != recorded.uploadId)
        #expect(reports.progress.value.first.map { $0 < Int64(5 * Self.mebibyte) } == true, "nothing counted as stored")
        #expect(try await S3StorageTests.stored(setup).body == changed)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
    }

    @Test func anUploadStorageNoLongerHasStartsAgainFromPartOne() async throws {
        let (setup, recorded) = try await Self.interruptedAfterTwoParts()
        defer { setup.fixture.cleanUp() }
        await setup.storage.abandon(recorded)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty, "abandon aborts")
        var transfer = setup.transfer
        transfer.multipart = recorded
        let reports = Reports()

        try await Self.upload(setup, transfer, into: reports)

        #expect(setup.transport.count(.create) == 2)
        #expect(reports.stored.value.last?.uploadId != recorded.uploadId)
        #expect(try await S3StorageTests.stored(setup).body == setup.bytes)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
        await setup.storage.abandon(recorded)  // already gone: nothing to do, nothing thrown
    }

    /// A sweep's view of the bucket: a planted orphan (its batch records another upload) is aborted, the upload its
    /// batch will resume is left alone, and uploads outside the prefix are never listed.
    @Test func aSweepAbortsAPlantedOrphanAndLeavesTheLiveUploadAlone() async throws {
        let (setup, live) = try await Self.interruptedAfterTwoParts()
        defer { setup.fixture.cleanUp() }
        let presigner = setup.fixture.presigner
        let planted = try S3InitiateMultipartUploadResult(
            status: 200, body: try await setup.fixture.send(presigner.createMultipartUploadRequest(key: setup.key, mimeType: "video/mp4")).body)
        let outside = try S3InitiateMultipartUploadResult(
            status: 200, body: try await setup.fixture.send(presigner.createMultipartUploadRequest(key: "elsewhere/x.bin", mimeType: "")).body)

        let listed = try await setup.storage.incompleteUploads()
        #expect(Set(listed.map(\.uploadId)) == [live.uploadId, planted.uploadId])
        // moto dates every upload 2010-11-10T20:48:33Z; the date is read, its age is judged in S3OrphanedUploadsTests.
        #expect(listed.allSatisfy { $0.initiated != nil })
        let verdicts = S3OrphanedUploads(prefix: "uploads", minimumAge: .zero).judge(listed, now: Date()) { batchId in
            batchId == "trip-42" ? .references([live.uploadId]) : .unknown
        }
        for verdict in verdicts where verdict.isOrphan {
            try await setup.storage.abortUpload(key: verdict.upload.key, uploadId: verdict.upload.uploadId)
        }

        #expect(verdicts.filter(\.isOrphan).map(\.upload.uploadId) == [planted.uploadId])
        #expect(Set(try await S3MotoTransferTests.openUploads(setup.fixture)) == [live.uploadId, outside.uploadId])
    }

    @Test func anUploadCalledOffAsItIsCreatedIsAbortedAtOnce() async throws {
        let setup = try await S3StorageTests.setUp(size: Self.size)
        defer { setup.fixture.cleanUp() }

        await #expect(throws: CancellationError.self) {
            // The attempt is called off just as storage reports the new upload: its record may never be made.
            try await setup.storage.upload(setup.transfer, progress: { _, _ in }, stored: { _ in
                withUnsafeCurrentTask { $0?.cancel() }
            })
        }

        #expect(setup.transport.count(.create) == 1 && setup.transport.count(.abort) == 1)
        #expect((1...4).allSatisfy { setup.transport.count(.part($0)) == 0 })
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
    }

    @Test func aPartETagAttacheCannotKeepFailsTheUploadForGood() async throws {
        let setup = try await S3StorageTests.setUp(size: Self.size) { call in
            call.operation == .part(1)
                ? .answerAfterSending(HTTPResponse(status: 200, headers: [HTTPHeader("ETag", String(repeating: "e", count: 257))]))
                : nil
        }
        defer { setup.fixture.cleanUp() }
        let reports = Reports()

        let error = await #expect(throws: UploadError.self) { try await Self.upload(setup, setup.transfer, into: reports) }

        #expect(error?.isRetryable == false && error?.message.contains("ETag of 257 bytes") == true)
        #expect(reports.stored.value.allSatisfy { $0.parts.allSatisfy { $0.number != 1 && $0.etag.utf8.count <= 256 } },
                "nothing over the limit was recorded")
    }

    @Test func aRecordedUploadThatFailsIsLeftForTheNextAttempt() async throws {
        let setup = try await S3StorageTests.setUp(
            size: Self.size, configuration: S3StorageTests.configuration(partConcurrency: 1)
        ) { call in
            call.operation == .part(2) ? .answer(ScriptedStorageTransport.error(403, "AccessDenied")) : nil
        }
        defer { setup.fixture.cleanUp() }
        let reports = Reports()

        await #expect(throws: UploadError.self) { try await Self.upload(setup, setup.transfer, into: reports) }

        #expect(setup.transport.count(.abort) == 0)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture) == [try #require(reports.stored.value.last).uploadId])
    }
}
