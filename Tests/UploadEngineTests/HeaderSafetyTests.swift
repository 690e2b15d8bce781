import Foundation
import Testing
@testable import UploadEngine
import WireFormat

/// The contract's header safety (`docs/contract.md`, "Header safety") where the engine is the entry point: a
/// presigner's answer (its method and headers go on the PUT). A job's fields, a file's mime type among them, are held
/// to it where the record is decoded (`RecordFieldTests`).
@Suite struct HeaderSafetyTests {
    @Test(arguments: ["u\r\nX-Evil: 1", "a\rb", "a\nb", "a\u{0}b", "tab\there", "del\u{7F}", "nel\u{85}", "ls\u{2028}"])
    func textWithAControlCharacterIsUnsafe(text: String) {
        #expect(!HeaderSafety.isSafe(text))
    }

    @Test(arguments: ["cometchat-uid-7", "image/jpeg; charset=utf-8", "Ünïcödé ✓", "", "zero\u{200B}width"])
    func printableTextIsSafe(text: String) {
        #expect(HeaderSafety.isSafe(text))
    }

    @Test(arguments: [
        [HTTPHeader("x-amz-meta-a", "1\r\nX-Evil: 1")],
        [HTTPHeader("X-Evil: 1\r\nx-amz-acl", "private")],
        [HTTPHeader("x-ok", "1"), HTTPHeader("x-null", "a\u{0}")],
    ])
    func aPresignAnswerWithAControlCharacterInAHeaderFailsTheFileAsAnInvalidURL(headers: [HTTPHeader]) {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 })
        h.add([inline("f1")])
        h.stageAll()
        h.answerPresign { files in
            .success([files[0].fileId: .target(UploadTarget(uploadURL: "https://store.test/f1", headers: headers,
                                                            fileURL: "https://cdn.test/f1"))])
        }
        #expect(h.uploads.isEmpty, "nothing is sent")
        #expect(h.failures(of: "f1").map(\.error.code) == [.invalidURL])
        #expect(h.batch.state(of: "f1") == .failed)
    }

    @Test func aPresignAnswerWithAControlCharacterInItsMethodFailsTheFile() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 1 })
        h.add([inline("f1")])
        h.stageAll()
        h.answerPresign { files in
            .success([files[0].fileId: .target(UploadTarget(uploadURL: "https://store.test/f1", method: "PUT /x HTTP/1.1\r\nX-Evil: 1",
                                                            fileURL: "https://cdn.test/f1"))])
        }
        #expect(h.uploads.isEmpty)
        #expect(h.failures(of: "f1").map(\.error.code) == [.invalidURL])
    }

    @Test func aRetryAfterABadAnswerPresignsAgain() {
        var h = BatchHarness(configure: { $0.retry.maxAttempts = 2; $0.retry.baseDelay = .zero; $0.retry.maxDelay = .zero })
        h.add([inline("f1")])
        h.stageAll()
        h.answerPresign { files in
            .success([files[0].fileId: .target(UploadTarget(uploadURL: "https://store.test/f1", headers: [HTTPHeader("a", "\n")],
                                                            fileURL: "https://cdn.test/f1"))])
        }
        h.advance(.milliseconds(1))
        #expect(h.presigns.count == 1, "the bad answer is dropped and the file presigned again")
        h.presignAll()
        #expect(h.uploads.count == 1)
    }
}
