import Foundation
import Testing
import UploadEngine

@testable import Worker
import WireFormat

@Suite struct MessageWireTests {
    @Test func optionalFieldsAreLeftOutAndCategoryIsAlwaysMessage() throws {
        let attachment = Attachment(
            fileId: "f3", name: "Notes.PDF", url: "https://cdn.invalid/n.pdf", mimeType: "application/pdf", size: 9,
            sha256: "00")
        let message = MediaMessageRequest(
            receiver: Receiver(id: "g1", type: .group), type: .file, muid: "m1",
            data: .init(metadata: ["batchId": "b"], attachments: [.init(attachment)]))

        let json = try JSONParser.parse(message.encoded())

        #expect(
            json
                == [
                    "receiver": "g1", "receiverType": "group", "category": "message", "type": "file", "muid": "m1",
                    "data": [
                        "metadata": ["batchId": "b"],
                        "attachments": [
                            ["url": "https://cdn.invalid/n.pdf", "name": "Notes.PDF", "mimeType": "application/pdf", "extension": "pdf", "size": 9]
                        ],
                    ],
                ])
    }

    @Test func tagsAreSentWhenThereAreSome() throws {
        let message = MediaMessageRequest(
            receiver: Receiver(id: "u", type: .user), type: .audio, muid: "m", tags: ["trip"],
            data: .init(attachments: []))
        #expect(try JSONParser.parse(message.encoded())["tags"] == ["trip"])
    }

    @Test func theSameMessageAlwaysEncodesToTheSameBytes() throws {
        let message = MediaMessageRequest(
            receiver: Receiver(id: "u", type: .user), type: .video, muid: "m",
            data: .init(metadata: ["z": 1, "a": [true, nil, 2.5], "m": "x"], attachments: []))
        #expect(message.encoded() == (message.encoded()))
        #expect(String(decoding: message.encoded(), as: UTF8.self).contains(#""metadata":{"a":[true,null,2.5],"m":"x","z":1}"#))
    }

    @Test func jsonValuesRoundTripWithIntegersKeptExact() throws {
        let value: JSONValue = ["id": .int(9_007_199_254_740_993), "ratio": 0.5, "ok": false, "none": nil, "list": ["a"]]
        var json = JSONWriter()
        json.value(value)
        let decoded = try JSONParser.parse(json.bytes)
        #expect(decoded == value)
        #expect(decoded["id"]?.idString == "9007199254740993")
    }
}
