import Foundation
@testable import Records
import Testing
import UploadEngine
import WireFormat


@Suite struct CloudEventEncoderTests {
    private let encoder = CloudEventEncoder(workerId: "worker-7")
    private let time = Date(timeIntervalSince1970: 1_796_072_400.123)

    private func object(_ bytes: Data) throws -> [String: JSONValue] {
        try #require(try JSONParser.parse(bytes).objectValue)
    }

    private let attachment = UploadEngine.Attachment(fileId: "f1", name: "photo \"1\".JPG", url: "https://cdn.test/f1", mimeType: "image/jpeg", size: 48213, sha256: "ab12")

    @Test func theEnvelopeFollowsCloudEventsStructuredMode() throws {
        let event = WorkerEvent.upload(UploadEvent(batchId: "trip-42", requestId: "req-7f3", fileId: "f1",
                                                   kind: .progress(loaded: 1024, total: 48213, percent: 2)))
        let json = try object(encoder.encode(event, sequence: 17, time: time))
        #expect(json["specversion"] == "1.0")
        #expect(json["source"] == "attache/worker-7")
        #expect(json["type"] == "attache.file.progress")
        #expect(json["subject"] == "trip-42")
        #expect(json["time"] == "2026-11-30T21:00:00.123Z")
        #expect(json["datacontenttype"] == "application/json")
        #expect(json["sequence"] == "17")
        #expect(json["id"]?.stringValue?.hasPrefix("worker-7-") == true)
        let data = try #require(json["data"])
        #expect(data["batchId"] == "trip-42")
        #expect(data["requestId"] == "req-7f3")
        #expect(data["fileId"] == "f1")
        #expect(data["loaded"] == 1024)
        #expect(data["total"] == 48213)
        #expect(data["percent"] == 2)
    }

    @Test func aNamedTenantIsAnExtensionAttributeAndADefaultedOneIsLeftOut() throws {
        var named = UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .removed)
        named.tenant = "acme"
        #expect(try object(encoder.encode(.upload(named), sequence: 1))["tenant"] == "acme")
        let plain = UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .removed)
        #expect(try object(encoder.encode(.upload(plain), sequence: 1))["tenant"] == nil)
        // The batch stamps its job's tenant on every event it makes.
        var batch = UploadBatch(context: BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user), tenant: "acme"),
                                configuration: EngineConfiguration())
        var events = [plain, plain]
        batch.stampSequence(&events)
        #expect(events.map(\.tenant) == ["acme", "acme"])
    }

    @Test func progressEventIdsAreUnique() throws {
        let event = WorkerEvent.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .progress(loaded: 1, total: 2, percent: 50)))
        let ids = try (0..<100).map { try object(encoder.encode(event, sequence: UInt64($0)))["id"]?.stringValue }
        #expect(Set(ids).count == 100)
    }

    @Test func settlingEventIdsNameWhatTheyAreAboutSoARepeatHasTheSameId() throws {
        func id(_ kind: UploadEvent.Kind, fileId: String? = "f", identity: String, batchId: String = "b",
                by encoder: CloudEventEncoder = CloudEventEncoder(workerId: "w1")) throws -> String? {
            try object(encoder.encode(.upload(UploadEvent(batchId: batchId, requestId: "r", fileId: fileId, kind: kind, identity: identity)),
                                      sequence: 1))["id"]?.stringValue
        }
        let removed = try id(.removed, identity: "3.1")
        #expect(removed == (try id(.removed, identity: "3.1", by: CloudEventEncoder(workerId: "another-worker"))),
                "the next owner publishing the same transition gives it the same id")
        #expect(removed.map { UUID(uuidString: $0) != nil } == true, "a name-based UUID")
        #expect(removed != (try id(.removed, identity: "4.1")), "another generation is another event")
        #expect(removed != (try id(.removed, fileId: "g", identity: "3.1")))
        #expect(removed != (try id(.removed, identity: "3.1", batchId: "c")))
        #expect(removed != (try id(.rejected(UploadError(.fileDataEmpty, "x")), identity: "3.1")), "another type is another event")
        let sent = try id(.messageSent(muid: "m1", type: .image, fileIds: ["f"], responseId: nil), fileId: nil, identity: "1")
        #expect(sent != (try id(.messageSent(muid: "m2", type: .image, fileIds: ["f"], responseId: nil), fileId: nil, identity: "1")))
    }

    @Test func anEncryptedAttachmentSaysHowAndAPlainOneSaysNothing() throws {
        var sealed = attachment
        sealed.encryption = "aws:kms"
        let encoded = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f1", kind: .uploaded(sealed))), sequence: 1))
        #expect(encoded["data"]?["attachment"]?["encryption"] == "aws:kms")
        let plain = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f1", kind: .uploaded(attachment))), sequence: 1))
        #expect(plain["data"]?["attachment"]?.objectValue?.keys.contains("encryption") == false)
    }

    @Test func uploadedAndCompletedCarryTheContractsShapes() throws {
        let uploaded = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f1", kind: .uploaded(attachment))), sequence: 1))
        #expect(uploaded["data"]?["attachment"] == WireFormatJSON.attachment(attachment))

        let result = UploadResult(batchId: "b", successful: [.init(fileId: "f1", attachment: attachment)],
                                  rejected: [.init(fileId: "f2", error: WireError(UploadError(.fileDataEmpty, "the file has no data")))],
                                  failed: [.init(fileId: "f3", error: WireError(UploadError(.uploadStalled, "no progress\nfor 30s")))])
        let completed = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: nil, kind: .completed(result))), sequence: 2))
        #expect(completed["type"] == "attache.batch.completed")
        let completedData = try #require(completed["data"])
        #expect(completedData["fileId"] == nil)
        #expect(completedData["result"] == WireFormatJSON.result(result))
    }

    @Test func failuresCarryCodeRetryabilityAttemptAndWillRetry() throws {
        let failed = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind:
            .failed(UploadError(.s3UploadFailed, "HTTP 503"), attempt: 2, willRetry: true))), sequence: 3))
        let data = try #require(failed["data"])
        let error = try #require(data["error"])
        #expect(error["code"] == "ERR_S3_UPLOAD_FAILED")
        #expect(error["message"] == "HTTP 503")
        #expect(error["retryable"] == true)
        #expect(data["attempt"] == 2)
        #expect(data["willRetry"] == true)

        let rejected = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind:
            .rejected(UploadError(.fileSizeExceeded, "too big", retryable: false)))), sequence: 4))
        #expect(rejected["data"]?["error"]?["retryable"] == false)
    }

    @Test func messageAndInvalidJobEventsCarryTheirFields() throws {
        let sent = try object(encoder.encode(.upload(UploadEvent(batchId: "b", requestId: "r", fileId: nil,
                                                                 kind: .messageSent(muid: "m-1", type: .image, fileIds: ["f1", "f2"], responseId: "991"))),
                                             sequence: 5))
        let sentData = try #require(sent["data"])
        #expect(sent["type"] == "attache.message.sent")
        #expect(sentData["muid"] == "m-1")
        #expect(sentData["messageType"] == "image")
        #expect(sentData["fileIds"] == ["f1", "f2"])
        #expect(sentData["response"]?["id"] == "991")

        let invalid = try object(encoder.encode(.jobInvalid(batchId: "k", requestId: "attache.jobs/0/9", reason: "unknown kind 'x'",
                                                            topic: "attache.jobs", partition: 0, offset: 9), sequence: 6))
        let invalidData = try #require(invalid["data"])
        #expect(invalid["type"] == "attache.job.invalid")
        #expect(invalidData["reason"] == "unknown kind 'x'")
        #expect(invalidData["offset"] == 9)
        #expect(invalidData["partition"] == 0)
    }

    @Test func stringsAreEscaped() throws {
        var json = JSONWriter()
        json.beginObject()
        json.field("k", "quote\" backslash\\ newline\n tab\t bell\u{7} é 🚀")
        json.key("meta")
        json.value(.object(["n": .int(1), "list": .array([.bool(true), .null, .double(1.5)])]))
        json.endObject()
        #expect(try JSONParser.parse(json.bytes) == [
            "k": "quote\" backslash\\ newline\n tab\t bell\u{7} é 🚀",
            "meta": ["n": 1, "list": [true, nil, 1.5]],
        ])
    }
}
