import Foundation
import Testing
import UploadEngine

@testable import HTTPTransport

@Suite struct PresignEndpointWireTests {
    static func json(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))
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
        let answer = try JSONDecoder().decode(PresignEndpointAnswer.self, from: Data(body.utf8))
        guard case .target(let target) = answer.files.first?.outcome else {
            Issue.record("expected a target")
            return
        }
        #expect(target.expiresAt == Date(timeIntervalSince1970: epoch))
    }

    @Test func anEntryWithoutUploadURLOrErrorIsUnreadable() {
        let body = #"{"files":[{"fileId":"f","fileUrl":"https://c.invalid/x"}]}"#
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(PresignEndpointAnswer.self, from: Data(body.utf8))
        }
    }
}
