import Foundation
@testable import Records
import Testing
import UploadEngine
import WireFormat

/// The one table of byte limits (DESIGN §2.1 "Every string a record supplies has a byte limit"), held where records
/// are decoded: each field at its limit is taken, one byte over is refused — a job-level field makes the record
/// invalid, a file-level one rejects that file alone `ERR_INVALID_FILE_OBJECT`.
@Suite struct RecordFieldTests {
    private let decoder = JobDecoder(limits: UploadLimits())

    /// `count` bytes of text, mostly two-byte characters, so that a limit counted in characters would let it pass.
    private static func text(bytes count: Int, after prefix: String = "") -> String {
        let room = count - prefix.utf8.count
        return prefix + String(repeating: "é", count: room / 2) + (room.isMultiple(of: 2) ? "" : "a")
    }

    private func decode(_ record: [String: JSONValue], key: String? = nil) -> Result<JobCommand, InvalidJob> {
        var json = JSONWriter()
        json.value(.object(record))
        return decoder.decode(json.bytes, from: JobDecoder.Provenance(topic: "attache.jobs", partition: 0, offset: 7, key: key))
    }

    private static func job(files: [JSONValue] = []) -> [String: JSONValue] {
        ["receiver": ["id": "u1", "type": "user"], "files": .array(files)]
    }

    @Test func theTableHoldsTheContractsLimits() {
        let limits = Dictionary(uniqueKeysWithValues: RecordField.allCases.map { ($0.rawValue, $0.maxBytes) })
        #expect(limits == ["batchId": 128, "requestId": 128, "fileId": 128, "receiver.id": 128, "sender": 128, "parentMessageId": 128,
                           "tenant": 128, "name": 255, "mimeType": 255, "source.url": 8192, "source.path": 4096, "traceparent": 256, "tracestate": 512])
    }

    @Test(arguments: [RecordField.batchId, .requestId, .receiverId, .sender, .parentMessageId, .tenant])
    func aJobLevelFieldAtItsLimitIsTakenAndOneByteOverMakesTheRecordInvalid(field: RecordField) throws {
        func record(_ value: String) -> [String: JSONValue] {
            var record = Self.job()
            if field == .receiverId { record["receiver"] = ["id": .string(value), "type": "user"] } else { record[field.rawValue] = .string(value) }
            return record
        }
        let atLimit = Self.text(bytes: field.maxBytes)
        guard case .upload(let job) = try decode(record(atLimit)).get() else { Issue.record("not an upload"); return }
        let taken: String? = switch field {
        case .batchId: job.batchId
        case .requestId: job.requestId
        case .receiverId: job.receiver.id
        case .sender: job.sender
        case .tenant: job.tenant
        default: job.parentMessageId
        }
        #expect(taken == atLimit)
        let over = Self.text(bytes: field.maxBytes + 1)
        #expect(decode(record(over)) == .failure(InvalidJob("\(field.rawValue) takes \(field.maxBytes + 1) bytes; at most \(field.maxBytes) are allowed")))
    }

    @Test func aRecordKeyStandingInForTheBatchIdHasItsLimit() throws {
        let atLimit = Self.text(bytes: 128)
        #expect(try decode(Self.job(), key: atLimit).get().batchId == atLimit)
        #expect(decode(Self.job(), key: atLimit + "a")
                == .failure(InvalidJob("the record key, used as batchId, takes 129 bytes; at most 128 are allowed")))
    }

    @Test func aControlsFileIdOverItsLimitMakesTheControlInvalid() throws {
        let atLimit = Self.text(bytes: 128)
        #expect(try decode(["kind": "retry", "batchId": "b", "fileId": .string(atLimit)]).get() == .retry(batchId: "b", fileId: atLimit))
        #expect(decode(["kind": "remove", "batchId": "b", "fileId": .string(atLimit + "a")])
                == .failure(InvalidJob("fileId takes 129 bytes; at most 128 are allowed")))
    }

    @Test(arguments: [RecordField.fileId, .name, .mimeType, .url, .path])
    func aFileLevelFieldAtItsLimitIsTakenAndOneByteOverRejectsOnlyThatFile(field: RecordField) throws {
        func file(_ id: String, bytes: Int) -> JSONValue {
            var file: [String: JSONValue] = ["fileId": .string(id), "name": "a.png", "mimeType": "image/png", "source": ["url": "https://files.test/a.png"]]
            switch field {
            case .fileId: file["fileId"] = .string(Self.text(bytes: bytes))
            case .name: file["name"] = .string(Self.text(bytes: bytes, after: "a.png"))
            case .mimeType: file["mimeType"] = .string(Self.text(bytes: bytes, after: "image/png; p="))
            case .url: file["source"] = ["url": .string(Self.text(bytes: bytes, after: "https://files.test/"))]
            default: file["source"] = ["path": .string(Self.text(bytes: bytes, after: "inbox/"))]
            }
            return .object(file)
        }
        let record = Self.job(files: [file("at", bytes: field.maxBytes), file("over", bytes: field.maxBytes + 1),
                                      ["fileId": "plain", "source": ["data": "aGk="]]])
        guard case .upload(let job) = try decode(record).get() else { Issue.record("not an upload"); return }
        let (atLimit, over) = (job.files[0], job.files[1])
        let taken: String? = switch (field, atLimit.source) {
        case (.fileId, _): atLimit.fileId
        case (.name, _): atLimit.name
        case (.mimeType, _): atLimit.mimeType
        case (.url, .url(let url)): url
        case (.path, .path(let path)): path
        default: nil
        }
        #expect(taken?.utf8.count == field.maxBytes, "taken whole at its limit")
        #expect(over.source == .malformed("\(field.rawValue) takes \(field.maxBytes + 1) bytes; at most \(field.maxBytes) are allowed"))
        #expect(over.fileId.utf8.count <= RecordField.fileId.maxBytes && over.name.utf8.count <= RecordField.name.maxBytes
                && (over.mimeType?.utf8.count ?? 0) <= RecordField.mimeType.maxBytes, "what the refused file keeps is bounded")

        // The engine rejects that file alone; the others go on.
        var batch = UploadBatch(context: job.context, configuration: EngineConfiguration(), concurrency: 10)
        let events = batch.add(job.files, requestId: job.requestId, now: Date()).events
        let rejected = events.compactMap { event -> String? in
            if case .rejected(let error) = event.kind { "\(event.fileId ?? "?") \(error.code.rawValue)" } else { nil }
        }
        #expect(rejected == ["\(over.fileId) ERR_INVALID_FILE_OBJECT"])
    }

    @Test func aDerivedNameLongerThanANameMayBeKeepsItsEnd() throws {
        let segment = Self.text(bytes: 1000) + ".pdf"
        let record = Self.job(files: [["fileId": "f", "source": ["path": .string("inbox/" + segment)]]])
        guard case .upload(let job) = try decode(record).get() else { Issue.record("not an upload"); return }
        #expect(job.files[0].source == .path("inbox/" + segment), "the file is not refused for a name it did not give")
        #expect(job.files[0].name.utf8.count <= RecordField.name.maxBytes)
        #expect(job.files[0].name.hasSuffix("é.pdf"))
    }
}
