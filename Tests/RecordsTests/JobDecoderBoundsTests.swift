import Foundation
@testable import Records
import Testing
import UploadEngine


/// The contract's bounds and header safety at the job decoder (`docs/contract.md`, "Bounds", "Header safety"): a
/// record that would make events, snapshots or headers unsafe is invalid as a whole and goes to the DLQ.
@Suite struct JobDecoderBoundsTests {
    private let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 0, offset: 9, key: "b1")

    private func decode(_ json: String, limits: UploadLimits = UploadLimits()) -> Result<JobCommand, InvalidJob> {
        JobDecoder(limits: limits).decode(Data(json.utf8), from: provenance)
    }

    private func files(_ count: Int) -> String {
        (0..<count).map { #"{"fileId": "f\#($0)", "source": {"data": "aGVsbG8="}}"# }.joined(separator: ",")
    }

    private func job(files: String = "", extra: String = "") -> String {
        #"{"receiver": {"id": "u1", "type": "user"}, "files": [\#(files)]\#(extra)}"#
    }

    @Test func aJobWithMoreFilesThanFilesPerJobIsInvalid() {
        let result = decode(job(files: files(101)))
        #expect(result == .failure(InvalidJob("files lists 101 entries; a job may list at most 100 (limits.filesPerJob)")))
    }

    @Test func aJobWithExactlyFilesPerJobFilesDecodes() throws {
        guard case .upload(let job) = try decode(job(files: files(100))).get() else { Issue.record("not an upload"); return }
        #expect(job.files.count == 100)
    }

    @Test func theLimitIsConfigurable() {
        var limits = UploadLimits()
        limits.filesPerJob = 2
        #expect((try? decode(job(files: files(2)), limits: limits).get()) != nil)
        #expect((try? decode(job(files: files(3)), limits: limits).get()) == nil)
    }

    @Test func aThirtyKilobyteJobWithThousandsOfFilesIsInvalidAsAWhole() {
        let entries = (0..<2000).map { #"{"fileId":"\#($0)"}"# }.joined(separator: ",")
        let record = job(files: entries)
        #expect(record.utf8.count < 40 * 1024)
        guard case .failure(let invalid) = decode(record) else { Issue.record("decoded"); return }
        #expect(invalid.reason.contains("limits.filesPerJob"))
    }

    @Test(arguments: [
        #", "message": {"caption": "\#(String(repeating: "c", count: 16 * 1024))"}"#,
        #", "message": {"metadata": {"blob": "\#(String(repeating: "m", count: 16 * 1024))"}}"#,
        #", "message": {"tags": [\#((0..<3000).map { #""tag-\#($0)""# }.joined(separator: ","))]}"#,
    ])
    func messageOptionsLargerThanMessageOptionsMaxAreInvalid(extra: String) {
        guard case .failure(let invalid) = decode(job(extra: extra)) else { Issue.record("decoded"); return }
        #expect(invalid.reason.contains("limits.messageOptionsMax"))
    }

    @Test func messageOptionsJustUnderTheLimitDecode() throws {
        let caption = String(repeating: "c", count: 16 * 1024 - 100)
        guard case .upload(let job) = try decode(job(extra: #", "message": {"caption": "\#(caption)", "tags": ["a"]}"#)).get() else {
            Issue.record("not an upload"); return
        }
        #expect(job.message.caption == caption)
    }

    @Test(arguments: [
        (#""sender": "u\r\nX-Evil: 1""#, "sender"),
        (#""parentMessageId": "12\n34""#, "parentMessageId"),
        (#""requestId": "r\r\nX-Evil: 1""#, "requestId"),
    ])
    func aHeaderBoundJobFieldWithAControlCharacterMakesTheJobInvalid(field: String, name: String) {
        guard case .failure(let invalid) = decode(job(extra: ", " + field)) else { Issue.record("decoded"); return }
        #expect(invalid.reason.hasPrefix(name))
    }

    @Test(arguments: ["u\\r\\nX-Evil: 1", "u\\u0000", "u\\u0085"])
    func aReceiverIdWithAControlCharacterMakesTheJobInvalid(id: String) {
        let record = #"{"receiver": {"id": "\#(id)", "type": "user"}, "files": []}"#
        #expect(decode(record) == .failure(InvalidJob("receiver.id must not contain control characters")))
    }

    @Test func aMimeTypeWithAControlCharacterRejectsOnlyItsFile() throws {
        let record = job(files: #"{"fileId": "f1", "mimeType": "image/jpeg;\r\nX-Evil: 1", "source": {"data": "aGVsbG8="}}, "#
                         + #"{"fileId": "f2", "mimeType": "image/jpeg", "source": {"data": "aGVsbG8="}}"#)
        guard case .upload(let job) = try decode(record).get() else { Issue.record("not an upload"); return }
        #expect(job.files.first?.source == .malformed("mimeType must not contain control characters"),
                "a file-level problem: ERR_INVALID_FILE_OBJECT")
        #expect(job.files.first?.mimeType == nil, "the type never reaches a Content-Type")
        #expect(job.files.last?.mimeType == "image/jpeg")
    }

    @Test func theLargestInlineLimitDoesNotOverflowTheBase64Estimate() throws {
        var limits = UploadLimits()
        limits.inlineMax = .max
        guard case .upload(let job) = try decode(job(files: files(1)), limits: limits).get() else { Issue.record("not an upload"); return }
        #expect(job.files.first?.source == .data(Data("hello".utf8)))
    }
}
