import Foundation
import Testing
@testable import UploadEngine

/// The drain's message plan: grouping, chunking, caption, deterministic muids.
@Suite struct MessagePlanTests {
    private func attachment(_ id: String, _ mime: String, size: Int64 = 1) -> UploadEngine.Attachment {
        UploadEngine.Attachment(fileId: id, name: "\(id).bin", url: "https://cdn.test/\(id)", mimeType: mime, size: size, sha256: "")
    }

    /// Files at their first generation.
    private func files(_ attachments: [UploadEngine.Attachment]) -> [MessagePlan.File] {
        attachments.map { ($0, 0) }
    }

    @Test func messagesGoImagesThenVideosThenAudiosThenFilesKeepingInputOrder() {
        let plan = MessagePlan.make(batchId: "b", files: files([
            attachment("doc", "application/pdf"), attachment("song", "audio/mpeg"), attachment("img1", "image/png"),
            attachment("clip", "video/mp4"), attachment("img2", "image/jpeg"),
        ]), caption: nil, perMessage: 10)
        #expect(plan.map(\.type) == [.image, .video, .audio, .file])
        #expect(plan.map(\.fileIds) == [["img1", "img2"], ["clip"], ["song"], ["doc"]])
    }

    @Test func eachGroupIsSplitIntoChunksOfAtMostTheLimit() {
        let images = (1...7).map { attachment("i\($0)", "image/png") }
        let plan = MessagePlan.make(batchId: "b", files: files(images + [attachment("d", "text/plain")]), caption: nil, perMessage: 3)
        #expect(plan.map(\.fileIds) == [["i1", "i2", "i3"], ["i4", "i5", "i6"], ["i7"], ["d"]])
    }

    @Test func aByteCapSplitsChunksInOrderAndAnOversizedAttachmentGoesAlone() {
        let megabyte: Int64 = 1 << 20
        let videos = [("v1", 20), ("v2", 20), ("v3", 70), ("v4", 120), ("v5", 30), ("v6", 50), ("v7", 1)].map {
            attachment($0.0, "video/mp4", size: Int64($0.1) * megabyte)
        }
        let plan = MessagePlan.make(batchId: "b", files: files(videos + [attachment("i1", "image/png", size: 150 * megabyte)]),
                                    caption: "Trip", perMessage: 10, maxBytes: 100 * megabyte)
        #expect(plan.map(\.fileIds) == [["i1"], ["v1", "v2"], ["v3"], ["v4"], ["v5", "v6", "v7"]])
        #expect(plan.map { $0.attachments.reduce(0) { $0 + $1.size } / megabyte } == [150, 40, 70, 120, 81])
        #expect(plan.map(\.caption) == ["Trip", nil, nil, nil, nil])
        // The count still applies within the byte cap.
        let small = (1...5).map { attachment("s\($0)", "image/png", size: megabyte) }
        #expect(MessagePlan.make(batchId: "b", files: files(small), caption: nil, perMessage: 2, maxBytes: 100 * megabyte)
            .map(\.fileIds) == [["s1", "s2"], ["s3", "s4"], ["s5"]])
    }

    @Test func onlyTheFirstMessageCarriesTheCaption() {
        let plan = MessagePlan.make(batchId: "b", files: files([attachment("a", "image/png"), attachment("b", "video/mp4")]),
                                    caption: "Trip photos", perMessage: 10)
        #expect(plan.map(\.caption) == ["Trip photos", nil])
    }

    @Test func muidsAreDeterministicAndDistinct() {
        let first = MessagePlan.muid(batchId: "trip-42", fileIds: ["f1", "f2"], generations: [0, 1])
        #expect(first == MessagePlan.muid(batchId: "trip-42", fileIds: ["f1", "f2"], generations: [0, 1]))
        #expect(first != MessagePlan.muid(batchId: "trip-42", fileIds: ["f2", "f1"], generations: [1, 0]))
        #expect(first != MessagePlan.muid(batchId: "trip-43", fileIds: ["f1", "f2"], generations: [0, 1]))
        #expect(first != MessagePlan.muid(batchId: "trip-42f1", fileIds: ["f2"], generations: [1]), "ids cannot run into each other")
        #expect(UUID(uuidString: first)?.uuidString.lowercased() == first)
        #expect(Array(first)[14] == "5", "a version-5 UUID")
        #expect(first == first.lowercased())
    }

    @Test func theSameFileIdsAtOtherGenerationsMakeAnotherMuid() {
        let first = MessagePlan.muid(batchId: "trip-42", fileIds: ["f1"], generations: [0])
        #expect(first != MessagePlan.muid(batchId: "trip-42", fileIds: ["f1"], generations: [3]))
        #expect(MessagePlan.muid(batchId: "b", fileIds: ["f1", "2"], generations: [1, 3])
                != MessagePlan.muid(batchId: "b", fileIds: ["f1"], generations: [12]), "a generation cannot run into an id")
    }

    @Test func thePlanCoversOnlyAttachmentsNotSentBefore() {
        var h = BatchHarness(configure: { $0.limits.attachmentsPerMessage = 1 }, concurrency: 2)
        h.add([inline("a"), inline("b")])
        h.settleAll()
        h.answerPost()  // the drain posts one message per file; the first, carrying "a", went out
        #expect(h.batch.unsentAttachments.map(\.fileId) == ["b"])
        let plan = MessagePlan.make(batchId: "b1", files: files(h.batch.unsentAttachments), caption: nil, perMessage: 10)
        #expect(plan.map(\.fileIds) == [["b"]])
    }
}
