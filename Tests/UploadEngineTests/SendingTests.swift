import Foundation
import Testing
@testable import UploadEngine

/// The send state as part of the batch model: drains plan messages, posts go out one at a time in plan order,
/// failures retry the post only, and what was sent is never sent again.
@Suite struct SendingTests {
    private static func file(_ id: String, _ mime: String = "image/png") -> FileItem {
        FileItem(fileId: id, name: "\(id).bin", mimeType: mime, source: .data(Data(count: 8)))
    }

    private func harness(_ mode: MessageOptions.SendMode = .auto, caption: String? = "Trip", perMessage: Int = 10) -> BatchHarness {
        var h = BatchHarness(configure: { $0.limits.attachmentsPerMessage = perMessage; $0.retry.baseDelay = .seconds(1) }, concurrency: 4)
        h.batch.setMessageOptions(MessageOptions(send: mode, caption: caption))
        return h
    }

    @Test func aDrainInAutoModePostsThePlanOneMessageAtATimeInPlanOrder() {
        var h = harness(perMessage: 1)
        h.add([Self.file("a"), Self.file("v", "video/mp4")])
        h.settleAll()
        #expect(h.posts.map(\.message.fileIds) == [["a"]], "the second message waits for the first")
        #expect(h.batch.isSending && !h.batch.isQuiescent)
        h.answerPost()
        #expect(h.posts.map(\.message.fileIds) == [["v"]])
        h.answerPost()
        #expect(h.postedFileIds == [["a"], ["v"]])
        #expect(h.batch.isQuiescent)
        #expect(h.batch.sentMessages.map(\.fileIds) == [["a"], ["v"]])
        #expect(h.batch.captionSent)
        let sent = h.events.filter { if case .messageSent = $0.kind { true } else { false } }
        #expect(sent.allSatisfy { $0.requestId == "r1" }, "message events carry the request whose drain asked for them")
    }

    @Test func manualModeWaitsForASendControlAndAControlDuringARunFollowsIt() {
        var h = harness(.manual)
        h.add([Self.file("a")])
        h.settleAll()
        #expect(h.posts.isEmpty && h.batch.isQuiescent)
        h.requestSend()
        #expect(h.posts.map(\.message.fileIds) == [["a"]])
        h.add([Self.file("b")], request: "r2")
        h.settleAll()
        h.requestSend()
        #expect(h.posts.count == 1, "one run at a time")
        h.answerPost()
        #expect(h.posts.map(\.message.fileIds) == [["b"]], "the requested send follows with what is still unsent")
        #expect(h.posts.first?.message.caption == nil, "the caption went out with the first message only")
        h.answerPost()
        #expect(h.batch.isQuiescent)
    }

    @Test func aFailedPostIsRetriedAfterItsBackoffWithoutTouchingTheUploads() {
        var h = harness()
        h.add([Self.file("a")])
        h.settleAll()
        let uploadsBefore = h.uploadCalls.count
        h.answerPost(error: UploadError("ERR_MESSAGE_SEND_FAILED", "HTTP 503", retryable: true))
        #expect(h.posts.isEmpty)
        #expect(h.batch.nextDeadline != nil, "the retry is a deadline of the batch")
        h.advance(.seconds(2))
        #expect(h.posts.map(\.message.fileIds) == [["a"]])
        h.answerPost()
        let attempts = h.events.compactMap { event -> Int? in
            if case .messageFailed(_, _, let attempt, let willRetry) = event.kind, willRetry { attempt } else { nil }
        }
        #expect(attempts == [1])
        #expect(h.postedFileIds == [["a"]])
        #expect(h.uploadCalls.count == uploadsBefore, "a send retry never re-uploads")
    }

    @Test func aRefusedPostEndsTheRunAndASendControlTriesAgain() {
        var h = harness()
        h.add([Self.file("a")])
        h.settleAll()
        h.answerPost(error: UploadError("ERR_MESSAGE_SEND_FAILED", "HTTP 400", retryable: false))
        #expect(h.batch.isQuiescent, "nothing more happens by itself")
        #expect(h.batch.unsentAttachments.map(\.fileId) == ["a"])
        h.requestSend()
        h.answerPost()
        #expect(h.postedFileIds == [["a"]])
    }

    @Test func anOutcomeOfAnOlderAttemptIsDropped() {
        var h = harness()
        h.add([Self.file("a")])
        h.settleAll()
        let stale = h.posts[0].token
        h.clear()
        #expect(h.batch.messagePosted(stale, responseId: nil, now: h.now).events.isEmpty)
        #expect(h.batch.sentMessages.isEmpty)
    }

    @Test func removingASentFileForgetsItInWhatWasSent() {
        var h = harness()
        h.add([Self.file("a"), Self.file("b")])
        h.settleAll()
        h.answerPost()
        h.remove("a")
        #expect(h.batch.sentMessages.map(\.fileIds) == [["b"]])
        #expect(h.deleted.isEmpty, "an object already in a message stays")
    }

    @Test func withMessagesOffADrainPlansNothing() {
        var h = BatchHarness(configure: { $0.sendsMessages = false })
        h.add([Self.file("a")])
        h.settleAll()
        #expect(h.posts.isEmpty && h.batch.isQuiescent)
    }
}
