import Foundation
@testable import Records
import Testing
import UploadEngine
import WireFormat

/// Every event fits `events.maxBytes` (`docs/contract.md`, "Bounds"), whatever a record, a server or a source put in
/// it: an event the producer refused would stop the worker, and every worker taking the partition after it.
@Suite struct CloudEventEncoderBoundsTests {
    private static let maxBytes = 64 * 1024
    private let encoder = CloudEventEncoder(workerId: "worker-7", maxBytes: Self.maxBytes)
    private static let huge = String(repeating: "é\"\\\u{1}", count: 40_000)

    private static func attachment(_ fileId: String, url: String = "https://cdn.test/f", name: String = "a.jpg") -> UploadEngine.Attachment {
        UploadEngine.Attachment(fileId: fileId, name: name, url: url, mimeType: "image/jpeg; p=\(huge.prefix(500))",
                                size: 1, sha256: "ab")
    }

    private static func upload(_ kind: UploadEvent.Kind, fileId: String? = "f1") -> WorkerEvent {
        .upload(UploadEvent(batchId: "b1", requestId: "r1", fileId: fileId, kind: kind))
    }

    private static let hugeError = UploadError(UploadErrorCode(huge), huge, retryable: true)

    /// One adversarial event of every type.
    static let adversarial: [(String, WorkerEvent)] = [
        ("progress", upload(.progress(loaded: .max, total: .max, percent: .max), fileId: huge)),
        ("uploaded", upload(.uploaded(attachment("f1", url: "https://cdn.test/" + huge, name: huge)))),
        ("rejected", upload(.rejected(hugeError))),
        ("failed", upload(.failed(hugeError, attempt: .max, willRetry: true))),
        ("removed", upload(.removed, fileId: huge)),
        ("completed", upload(.completed(UploadResult(
            batchId: "b1",
            successful: (0..<500).map { .init(fileId: "s\($0)", attachment: attachment("s\($0)", url: "https://cdn.test/\($0)?" + huge.prefix(500))) },
            rejected: (0..<100).map { .init(fileId: "r\($0)", error: WireError(hugeError)) }, rejectedTotal: 1_000_000,
            failed: (0..<500).map { .init(fileId: "x\($0)", error: WireError(hugeError)) })), fileId: nil)),
        ("message.sent", upload(.messageSent(muid: "m1", type: .image, fileIds: (0..<50_000).map { "file-\($0)" }, responseId: huge),
                                fileId: nil)),
        ("message.failed", upload(.messageFailed(muid: "m1", error: hugeError, attempt: 1, willRetry: false), fileId: nil)),
        ("job.invalid", .jobInvalid(batchId: huge, requestId: huge, reason: huge, topic: huge, partition: 0, offset: 1)),
    ]

    @Test(arguments: adversarial)
    func anAdversarialEventStillFitsAndStaysValidJSON(name: String, event: WorkerEvent) throws {
        let bytes = encoder.encode(event, sequence: 1)
        #expect(bytes.count <= Self.maxBytes, "\(name): \(bytes.count) bytes")
        let json = try JSONParser.parse(bytes)
        #expect(json["type"]?.stringValue == event.type)
        #expect(json["data"]?.objectValue != nil)
    }

    @Test func theDefaultBudgetIsUnderKafkasDefaultMessageLimit() {
        let encoder = CloudEventEncoder(workerId: "w")
        #expect(encoder.maxBytes == 900 * 1024)
        for (name, event) in Self.adversarial {
            #expect(encoder.encode(event, sequence: 1).count <= 900 * 1024, "\(name)")
        }
    }

    @Test func aSummarisedEventKeepsItsIdentityAndSaysWhatWasSummarised() throws {
        let event = Self.upload(.uploaded(Self.attachment("f1", url: "https://cdn.test/" + Self.huge)))
        let data = try #require(try JSONParser.parse(encoder.encode(event, sequence: 3))["data"])
        #expect(data["batchId"] == "b1")
        #expect(data["requestId"] == "r1")
        #expect(data["fileId"] == "f1")
        let attachment = try #require(data["attachment"])
        #expect(attachment["sha256"] == "ab", "small fields of the attachment survive")
        #expect(attachment["url"]?.stringValue?.hasSuffix("…") == true, "the long URL was cut")
    }

    @Test func aLongListIsReplacedByItsSummary() throws {
        let event = WorkerEvent.upload(UploadEvent(batchId: "b1", requestId: "r1", fileId: nil,
                                                   kind: .messageSent(muid: "m1", type: .file, fileIds: (0..<50_000).map { "file-\($0)" },
                                                                      responseId: "42")))
        let data = try #require(try JSONParser.parse(encoder.encode(event, sequence: 1))["data"])
        let summary = try #require(data["fileIds"]?["summarised"])
        #expect(summary["count"] == 50_000)
        #expect(data["muid"] == "m1")
        #expect(data["response"]?["id"] == "42")
    }

    @Test func anEventThatFitsIsLeftWhole() throws {
        let event = Self.upload(.rejected(UploadError(.invalidFileObject, "bad")))
        let bytes = encoder.encode(event, sequence: 1)
        let error = try #require(try JSONParser.parse(bytes)["data"]?["error"])
        #expect(error["message"] == "bad")
        #expect(error["code"] == "ERR_INVALID_FILE_OBJECT")
    }

    @Test func errorMessagesAreCutToOneKibibyte() throws {
        let event = Self.upload(.failed(UploadError(.s3UploadFailed, String(repeating: "x", count: 5000)), attempt: 1, willRetry: true))
        let message = try #require(try JSONParser.parse(encoder.encode(event, sequence: 1))["data"]?["error"]?["message"]?.stringValue)
        #expect(message.utf8.count <= WireError.messageLimit)
        #expect(message.hasSuffix("…"))
    }

    @Test func completedCarriesRejectedTotal() throws {
        let result = UploadResult(batchId: "b", rejected: [.init(fileId: "f", error: WireError(UploadError(.fileDataEmpty, "x")))],
                                  rejectedTotal: 250)
        let bytes = encoder.encode(Self.upload(.completed(result), fileId: nil), sequence: 1)
        let encoded = try #require(try JSONParser.parse(bytes)["data"]?["result"])
        #expect(encoded["rejectedTotal"] == 250)
        #expect(encoded == WireFormatJSON.result(result))
    }
}
