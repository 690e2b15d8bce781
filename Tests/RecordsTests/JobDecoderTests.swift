import Foundation
@testable import Records
import Testing
import UploadEngine
import WireFormat


@Suite struct JobDecoderTests {
    private let decoder = JobDecoder(limits: UploadLimits())
    private let origin = JobDecoder.Provenance(topic: "attache.jobs", partition: 2, offset: 41, key: "trip-42")

    private func decode(_ json: String, key: String? = "trip-42") -> Result<JobCommand, InvalidJob> {
        decoder.decode(Data(json.utf8), from: JobDecoder.Provenance(topic: "attache.jobs", partition: 2, offset: 41, key: key))
    }

    private func job(_ json: String, key: String? = "trip-42") throws -> UploadJob {
        guard case .upload(let job) = try decode(json, key: key).get() else { throw InvalidJob("not an upload") }
        return job
    }

    @Test func theDesignsExampleJobDecodes() throws {
        let job = try job("""
        {"kind": "upload", "requestId": "req-7f3", "batchId": "trip-42",
         "receiver": {"id": "cometchat-uid-1", "type": "user"}, "sender": "cometchat-uid-7", "parentMessageId": "1234",
         "concurrency": 3,
         "files": [
           {"fileId": "f1", "name": "photo-1.jpg", "mimeType": "image/jpeg", "size": 48213, "source": {"url": "https://files.example.com/abc.jpg?sig=..."}},
           {"fileId": "f2", "name": "notes.pdf", "source": {"path": "inbox/42/notes.pdf"}},
           {"fileId": "f3", "name": "hello.txt", "source": {"data": "aGVsbG8="}}
         ],
         "message": {"send": "auto", "caption": "Trip photos", "metadata": {"trip": 42}, "tags": []}}
        """)
        #expect(job.requestId == "req-7f3")
        #expect(job.batchId == "trip-42")
        #expect(job.receiver == Receiver(id: "cometchat-uid-1", type: .user))
        #expect(job.sender == "cometchat-uid-7")
        #expect(job.parentMessageId == "1234")
        #expect(job.concurrency == 3)
        #expect(job.files == [
            FileItem(fileId: "f1", name: "photo-1.jpg", mimeType: "image/jpeg", declaredSize: 48213, source: .url("https://files.example.com/abc.jpg?sig=...")),
            FileItem(fileId: "f2", name: "notes.pdf", source: .path("inbox/42/notes.pdf")),
            FileItem(fileId: "f3", name: "hello.txt", source: .data(Data("hello".utf8)),
                     origin: RecordOrigin(partition: 2, offset: 41, index: 2)),
        ])
        #expect(job.message == MessageOptions(send: .auto, caption: "Trip photos", metadata: ["trip": .int(42)], tags: []))
    }

    @Test func defaultsComeFromTheRecord() throws {
        let job = try job(#"{"receiver": {"id": "g1", "type": "group"}, "files": [], "parentMessageId": 77}"#)
        #expect(job.batchId == "trip-42", "the record key")
        #expect(job.requestId == "attache.jobs/2/41")
        #expect(job.parentMessageId == "77")
        #expect(job.message.send == .auto)
    }

    @Test func aJobWithoutBatchIdOrKeyGetsABatchIdMadeFromItsPositionSoAReplayFindsTheSameBatch() throws {
        let record = #"{"receiver": {"id": "u", "type": "user"}, "files": []}"#
        let job = try job(record, key: nil)
        #expect(UUID(uuidString: job.batchId) != nil)
        #expect(job.batchId == NameBasedUUID.string(namespace: JobDecoder.positionNamespace, joining: ["attache.jobs", "2", "41"]))
        #expect(try self.job(record, key: nil).batchId == job.batchId, "the same position, the same batch")
        #expect(try self.job(record, key: "").batchId == job.batchId, "an empty key is no key")
        let elsewhere = decoder.decode(Data(record.utf8), from: JobDecoder.Provenance(topic: "attache.jobs", partition: 2, offset: 42, key: nil))
        guard case .upload(let next) = try elsewhere.get() else { Issue.record("not an upload"); return }
        #expect(next.batchId != job.batchId, "another position, another batch")
    }

    @Test(arguments: [
        ("not json", "the record is not valid JSON"),
        ("[1, 2]", "the record is not a JSON object"),
        (#"{"kind": "explode", "batchId": "b"}"#, "unknown kind 'explode'"),
        (#"{"files": []}"#, "receiver is required"),
        (#"{"receiver": {"id": "", "type": "user"}, "files": []}"#, "receiver.id must be a non-empty string"),
        (#"{"receiver": {"id": "u", "type": "channel"}, "files": []}"#, "receiver.type must be user or group"),
        (#"{"receiver": {"id": 5, "type": "user"}, "files": []}"#, "receiver.id has the wrong type"),
        (#"{"receiver": {"id": "u", "type": "user"}}"#, "files must be an array"),
        (#"{"receiver": {"id": "u", "type": "user"}, "files": {}}"#, "files has the wrong type"),
        (#"{"batchId": "", "receiver": {"id": "u", "type": "user"}, "files": []}"#, "batchId must be 1–128 bytes of printable characters, not blank"),
        (#"{"requestId": "a\u0000b", "receiver": {"id": "u", "type": "user"}, "files": []}"#, "requestId must be 1–128 bytes of printable characters, not blank"),
        (#"{"concurrency": 0, "receiver": {"id": "u", "type": "user"}, "files": []}"#, "concurrency must be between 1 and 1000"),
        (#"{"receiver": {"id": "u", "type": "user"}, "files": [], "message": {"send": "later"}}"#, "message.send must be auto, manual or none"),
        (#"{"kind": "retry", "batchId": "b"}"#, "fileId is required"),
        (#"{"kind": "configure", "batchId": "b", "concurrency": 0}"#, "configure needs concurrency between 1 and 1000"),
    ])
    func invalidRecordsSayWhy(json: String, reason: String) {
        #expect(decode(json) == .failure(InvalidJob(reason)))
    }

    @Test func controlsWithoutABatchIdOrKeyAreInvalid() {
        #expect(decode(#"{"kind": "clear"}"#, key: nil) == .failure(InvalidJob("batchId is required (field or record key)")))
    }

    @Test func controlsDecode() throws {
        #expect(try decode(#"{"kind": "retry", "fileId": "f1"}"#).get() == .retry(batchId: "trip-42", fileId: "f1"))
        #expect(try decode(#"{"kind": "remove", "batchId": "b", "fileId": "f1"}"#).get() == .remove(batchId: "b", fileId: "f1"))
        #expect(try decode(#"{"kind": "clear"}"#).get() == .clear(batchId: "trip-42"))
        #expect(try decode(#"{"kind": "send"}"#).get() == .send(batchId: "trip-42"))
        #expect(try decode(#"{"kind": "configure", "concurrency": 4}"#).get() == .configure(batchId: "trip-42", concurrency: 4))
    }

    @Test func aBadFileRejectsOnlyThatFile() throws {
        let job = try job("""
        {"receiver": {"id": "u", "type": "user"}, "files": [
          {"fileId": "ok", "name": "a.txt", "source": {"data": "aGk="}},
          {"fileId": "two", "source": {"url": "https://x/a", "path": "a"}},
          {"fileId": "none"},
          {"fileId": "b64", "source": {"data": "***"}},
          {"fileId": "typed", "size": "big", "source": {"data": "aGk="}},
          "just a string"
        ]}
        """)
        #expect(job.files.map(\.fileId) == ["ok", "two", "none", "b64", "typed", ""])
        #expect(job.files[0].source == .data(Data("hi".utf8)))
        #expect(job.files[1].source == .malformed("source must have exactly one of url, path, data"))
        #expect(job.files[2].source == .malformed("source is required"))
        #expect(job.files[3].source == .malformed("source.data is not valid base64"))
        #expect(job.files[4].source == .malformed("the file entry is not a valid object"))
        #expect(job.files[5].source == .malformed("the file entry is not a valid object"))
    }

    @Test func oversizedInlineDataIsNotDecoded() throws {
        let small = JobDecoder(limits: { var l = UploadLimits(); l.inlineMax = 30; return l }())
        let data = Data(repeating: 1, count: 300).base64EncodedString()
        let json = #"{"receiver": {"id": "u", "type": "user"}, "files": [{"fileId": "f", "source": {"data": "\#(data)"}}]}"#
        guard case .upload(let job) = try small.decode(Data(json.utf8), from: origin).get() else { Issue.record("not an upload"); return }
        #expect(job.files[0].source == .oversizedData(byteCount: 300))
    }

    @Test func namesDefaultToTheSourcesLastComponent() throws {
        let job = try job("""
        {"receiver": {"id": "u", "type": "user"}, "files": [
          {"fileId": "a", "source": {"url": "https://cdn.example.com/x/photo.jpg?sig=1"}},
          {"fileId": "b", "source": {"path": "inbox/42/notes.pdf"}},
          {"fileId": "c", "source": {"data": "aGk="}}
        ]}
        """)
        #expect(job.files.map(\.name) == ["photo.jpg", "notes.pdf", "file"])
    }
}

extension JobDecoderTests {
    @Test func locationStrippingIsSetPerJobAndOverriddenPerFile() throws {
        let job = try job("""
        {"receiver": {"id": "u", "type": "user"}, "stripLocation": true, "files": [
          {"fileId": "a", "source": {"data": "aGk="}},
          {"fileId": "b", "stripLocation": false, "source": {"data": "aGk="}}
        ]}
        """)
        #expect(job.files.map(\.stripLocation) == [true, false])
        let plain = try self.job(#"{"receiver": {"id": "u", "type": "user"}, "files": [{"fileId": "c", "source": {"data": "aGk="}}]}"#)
        #expect(plain.files[0].stripLocation == nil, "absent: the worker's setting applies")
    }
}
