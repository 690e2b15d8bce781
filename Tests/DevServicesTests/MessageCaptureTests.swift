import Foundation
import TestSupport
import Testing
@testable import DevServices
import WireFormat

@Suite struct MessageCaptureTests {
    private static func message(muid: String, type: String = "image") throws -> String {
        jsonText([
            "receiver": "uid-1", "receiverType": "user", "category": "message", "type": .string(type), "muid": .string(muid),
            "parentId": 1234, "tags": ["t1"],
            "data": [
                "text": "Trip photos", "metadata": ["batchId": "trip-42", "trip": 42],
                "attachments": [["url": "http://127.0.0.1:1/b/f1/a.jpg", "name": "a.jpg", "mimeType": "image/jpeg",
                                 "extension": "jpg", "size": 10]],
            ],
        ])
    }

    private static func send(_ capture: MessageCapture, _ body: String, apiKey: String? = "key-1") async throws
        -> Curl.Result {
        let key = apiKey.map { ["-H", "apikey: \($0)"] } ?? []
        return try await Curl.run(key + ["-H", "onBehalfOf: uid-7", "-H", "Content-Type: application/json",
                                         "--data-binary", body, capture.url])
    }

    @Test func recordsHeadersAndBodyAndAnswersAnId() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }

        let result = try await Self.send(capture, try Self.message(muid: "m-1"))

        #expect(result.status == 200)
        let data = try #require(result.json?["data"])
        #expect(data["id"] == "1")
        #expect(data["muid"] == "m-1")
        #expect(data["sender"] == "uid-7")
        let request = try #require(capture.requests.first)
        #expect(request.apiKey == "key-1")
        #expect(request.onBehalfOf == "uid-7")
        #expect(request.outcome == .accepted(id: "1"))
        let message = try #require(request.message)
        #expect(message.receiver == "uid-1")
        #expect(message.type == "image")
        #expect(message.parentId == "1234")
        #expect(message.tags == ["t1"])
        #expect(message.data.text == "Trip photos")
        #expect(message.data.metadata?["batchId"] == .string("trip-42"))
        #expect(message.data.metadata?["trip"] == .int(42))
        #expect(message.data.attachments.map(\.name) == ["a.jpg"])
        #expect(try JSONParser.parse(request.body)["muid"] == "m-1")
    }

    @Test func repeatedMuidIsADuplicateAnsweredWithTheOriginalId() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }

        let first = try await Self.send(capture, try Self.message(muid: "m-1"))
        let again = try await Self.send(capture, try Self.message(muid: "m-1"))
        let other = try await Self.send(capture, try Self.message(muid: "m-2", type: "file"))

        #expect(first.json?["data"]?["id"] == "1")
        #expect(again.status == 200)
        #expect(again.json?["data"]?["id"] == "1")
        #expect(other.json?["data"]?["id"] == "2")
        #expect(capture.requests.map(\.outcome) == [.accepted(id: "1"), .duplicate(id: "1"), .accepted(id: "2")])
        #expect(capture.messages.compactMap(\.message?.muid) == ["m-1", "m-2"])
        #expect(capture.duplicates.count == 1)
    }

    @Test func wrongOrMissingApiKeyIsRefusedWhenOneIsConfigured() async throws {
        let capture = try MessageCapture(configuration: .init(apiKey: "key-1"))
        defer { capture.stop() }
        let body = try Self.message(muid: "m-1")

        let missing = try await Self.send(capture, body, apiKey: nil)
        let wrong = try await Self.send(capture, body, apiKey: "key-2")
        let right = try await Self.send(capture, body, apiKey: "key-1")

        #expect(missing.status == 401)
        #expect(wrong.status == 401)
        #expect(wrong.json?["error"]?["code"] == "AUTH_ERR_APIKEY_NOT_FOUND")
        #expect(right.status == 200)
        #expect(capture.requests.map(\.outcome) == [.unauthorized, .unauthorized, .accepted(id: "1")])
    }

    @Test(arguments: ["not json", #"{"receiver":"u","receiverType":"user","category":"message","type":"image"}"#,
                      #"{"receiver":"u","receiverType":"room","category":"message","type":"image","data":{"attachments":[]}}"#])
    func bodyThatIsNotAMediaMessageIsABadRequest(body: String) async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }

        let result = try await Self.send(capture, body)

        #expect(result.status == 400)
        #expect(capture.messages.isEmpty)
        guard case .malformed = try #require(capture.requests.first).outcome else {
            Issue.record("expected a malformed outcome")
            return
        }
    }

    @Test func pathIsConfigurable() async throws {
        let capture = try MessageCapture(configuration: .init(path: "/api/messages"))
        defer { capture.stop() }

        let result = try await Self.send(capture, try Self.message(muid: "m-1"))
        let old = try await Curl.run(["--data-binary", "{}",
                                      capture.url.replacingOccurrences(of: "/api/messages", with: "/v3/messages")])

        #expect(result.status == 200)
        #expect(old.status == 404)
    }

    @Test func injectedServerErrorsAreNotRecordedAsMessages() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }
        capture.faults.inject(.serverError(status: 500), times: 1)
        let body = try Self.message(muid: "m-1")

        let failed = try await Self.send(capture, body)
        let retried = try await Self.send(capture, body)

        #expect(failed.status == 500)
        #expect(retried.status == 200)
        #expect(capture.requests.map(\.outcome) == [.accepted(id: "1")])
        #expect(capture.faults.firingCount(.serverError) == 1)
    }

    @Test func stopClosesConnectionsAndStopsRecording() async throws {
        let capture = try MessageCapture()
        let idle = try #require(HeldConnection(port: capture.port))

        capture.stop()
        _ = try await Self.send(capture, try Self.message(muid: "m-1"))

        #expect(idle.isClosedByPeer())
        #expect(capture.requests.isEmpty)
    }
}
