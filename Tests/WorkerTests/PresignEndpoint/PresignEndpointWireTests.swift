import Foundation
import Testing
import UploadEngine

@testable import Worker
import WireFormat

@Suite struct PresignEndpointWireTests {
    static func json(_ request: PresignEndpointRequest) throws -> JSONValue {
        try JSONParser.parse(request.body)
    }

    @Test func theRequestBodyHasExactlyTheDesignedFields() throws {
        let request = PresignEndpointRequest(
            files: [PresignFile(fileId: "f1", name: "photo-1.jpg", mimeType: "image/jpeg", size: 48213, sha256: "ab")],
            context: BatchContext(
                batchId: "trip-42", receiver: Receiver(id: "cometchat-uid-1", type: .group), sender: "cometchat-uid-7",
                parentMessageId: "1234"))

        #expect(
            try Self.json(request)
                == [
                    "batchId": "trip-42", "receiver": ["id": "cometchat-uid-1", "type": "group"],
                    "sender": "cometchat-uid-7", "parentMessageId": "1234",
                    "files": [["fileId": "f1", "name": "photo-1.jpg", "mimeType": "image/jpeg", "size": 48213]],
                ])
    }

    @Test func namesThatNeedEscapingRoundTrip() throws {
        let name = "a \"quoted\" \\ name\twith é and 🙂.jpg"
        let request = PresignEndpointRequest(
            files: [PresignFile(fileId: "f\u{1}", name: name, mimeType: "image/jpeg", size: 1, sha256: "")],
            context: BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user)))
        let files = try Self.json(request)["files"]
        #expect(files == [["fileId": "f\u{1}", "name": .string(name), "mimeType": "image/jpeg", "size": 1]])
    }

    @Test func absentSenderAndParentAreLeftOut() throws {
        let request = PresignEndpointRequest(
            files: [], context: BatchContext(batchId: "b", receiver: Receiver(id: "u", type: .user)))

        #expect(try Self.json(request) == ["batchId": "b", "receiver": ["id": "u", "type": "user"], "files": []])
    }

    @Test(arguments: [
        (#""2030-01-02T03:04:05Z""#, 1_893_553_445.0),
        (#""2030-01-02T03:04:05.5Z""#, 1_893_553_445.5),
        (#""2030-01-02T05:04:05+02:00""#, 1_893_553_445.0),
        ("1893553445", 1_893_553_445.0),
        (#""1893553445""#, 1_893_553_445.0),
    ])
    func expiresAtIsISO8601OrEpochSeconds(json: String, epoch: Double) throws {
        let body = #"{"files":[{"fileId":"f","uploadUrl":"https://s.invalid/x","fileUrl":"https://c.invalid/x","expiresAt":\#(json)}]}"#
        let answer = try PresignEndpointAnswer(parsing: Data(body.utf8))
        guard case .target(let target) = answer.files.first?.outcome else {
            Issue.record("expected a target")
            return
        }
        #expect(target.expiresAt == Date(timeIntervalSince1970: epoch))
    }

    @Test func anEntryWithoutUploadURLOrErrorIsUnreadable() {
        let body = #"{"files":[{"fileId":"f","fileUrl":"https://c.invalid/x"}]}"#
        #expect(throws: PresignEndpointAnswer.Unreadable("missing uploadUrl at files.0")) {
            _ = try PresignEndpointAnswer(parsing: Data(body.utf8))
        }
    }

    @Test(arguments: [
        ("{", "not JSON"),
        ("[]", "wrong type at the top level"),
        (#"{"file": []}"#, "missing files array"),
        (#"{"files": [7]}"#, "wrong type at files.0"),
        (#"{"files": [{"uploadUrl": "https://s.invalid/x", "fileUrl": "https://c.invalid/x"}]}"#, "missing fileId at files.0"),
        (#"{"files": [{"fileId": 5, "uploadUrl": "u", "fileUrl": "f"}]}"#, "wrong type at files.0.fileId"),
        (#"{"files": [{"fileId": "f", "uploadUrl": "u", "fileUrl": "f", "headers": {"x-a": 1}}]}"#, "wrong type at files.0.headers.x-a"),
        (#"{"files": [{"fileId": "f", "uploadUrl": "u", "fileUrl": "f", "expiresAt": "soon"}]}"#,
         "files.0.expiresAt is neither RFC 3339 nor epoch seconds"),
        (#"{"files": [{"fileId": "f", "error": "no"}]}"#, "wrong type at files.0.error"),
    ])
    func unreadableAnswersSayWhereWithoutQuotingValues(body: String, reason: String) {
        #expect(throws: PresignEndpointAnswer.Unreadable(reason)) { _ = try PresignEndpointAnswer(parsing: Data(body.utf8)) }
    }

    @Test func anAnswerReadsBothShapesWithDefaults() throws {
        let body = #"""
        {"files": [
          {"fileId": "a", "uploadUrl": "https://s.invalid/a", "fileUrl": "https://c.invalid/a",
           "method": "post", "headers": {"x-b": "2", "x-a": "1"}, "expiresAt": null},
          {"fileId": "b", "error": {"code": "ERR_POLICY", "message": "too big"}},
          {"fileId": "c", "error": {}}
        ]}
        """#
        let answer = try PresignEndpointAnswer(parsing: Data(body.utf8))
        #expect(answer.files.map(\.fileId) == ["a", "b", "c"])
        #expect(answer.files[0].outcome == .target(UploadTarget(
            uploadURL: "https://s.invalid/a", method: "POST", headers: [HTTPHeader("x-a", "1"), HTTPHeader("x-b", "2")],
            fileURL: "https://c.invalid/a", expiresAt: nil)))
        #expect(answer.files[1].outcome == .refused(UploadError(UploadErrorCode("ERR_POLICY"), "too big", retryable: false)))
        #expect(answer.files[2].outcome == .refused(UploadError(.presignedURLFailed, "the presign service refused the file", retryable: false)))
    }
}

@Suite struct RFC3339InstantTests {
    @Test(arguments: [
        ("2030-01-02T03:04:05Z", 1_893_553_445.0),
        ("2030-01-02t03:04:05z", 1_893_553_445.0),
        ("2030-01-02T03:04:05.250Z", 1_893_553_445.25),
        ("2030-01-01T22:04:05-05:00", 1_893_553_445.0),
        ("1970-01-01T00:00:00Z", 0.0),
        ("2028-02-29T00:00:00Z", 1_835_395_200.0),
    ])
    func dateTimesWithAZoneAreRead(text: String, epoch: Double) {
        #expect(RFC3339Instant.parse(text) == Date(timeIntervalSince1970: epoch))
    }

    @Test(arguments: ["2030-01-02T03:04:05", "2030-02-31T00:00:00Z", "2029-02-29T00:00:00Z", "2030-13-01T00:00:00Z",
                      "2030-01-02T24:00:00Z", "2030-01-02T03:04:05.Z", "2030-01-02T03:04:05Z ", "30-01-02T03:04:05Z",
                      "2030-01-02T03:04:05+0200", ""])
    func anythingElseIsRefused(text: String) {
        #expect(RFC3339Instant.parse(text) == nil)
    }
}
