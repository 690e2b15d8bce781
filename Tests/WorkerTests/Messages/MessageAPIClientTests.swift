import DevServices
import Foundation
import TestSupport
import Testing
import UploadEngine

@testable import Worker
import HTTPTransport
import WireFormat

@Suite(.nginx, .timeLimit(.minutes(1))) struct MessageAPIClientTests {
    let nginx = NginxServer.current!

    static let message = MediaMessageRequest(
        receiver: Receiver(id: "cometchat-uid-1", type: .user), type: .image, muid: "6f1c2b9e-0000-5000-8000-000000000001",
        parentId: "1234",
        data: .init(
            text: "Trip photos", metadata: ["batchId": "trip-42", "trip": 42],
            attachments: [
                .init(url: "https://cdn.invalid/a.jpg", name: "a.jpg", mimeType: "image/jpeg", extension: "jpg", size: 48213),
                .init(url: "https://cdn.invalid/b.png", name: "b.png", mimeType: "image/png", extension: "png", size: 1024),
            ]))

    private func client(_ path: String) throws -> MessageAPIClient {
        MessageAPIClient(url: nginx.url(path), apiKey: "key-123", client: try HTTPClient(), clock: ManualClock(sleeping: .jumpsToDeadline))
    }

    @Test func theRequestCarriesTheHeadersAndTheDesignedBody() async throws {
        let delivery = try await client("/echo").send(Self.message, onBehalfOf: "cometchat-uid-7")

        let echoed = try JSONParser.parse(delivery.body)["data"]?["request"]
        #expect(echoed?["method"] == "POST")
        #expect(echoed?["apikey"] == "key-123")
        #expect(echoed?["onBehalfOf"] == "cometchat-uid-7")
        #expect(echoed?["contentType"] == "application/json")
        #expect(
            echoed?["body"]
                == [
                    "receiver": "cometchat-uid-1", "receiverType": "user", "category": "message", "type": "image",
                    "muid": "6f1c2b9e-0000-5000-8000-000000000001", "parentId": "1234",
                    "data": [
                        "text": "Trip photos", "metadata": ["batchId": "trip-42", "trip": 42],
                        "attachments": [
                            ["url": "https://cdn.invalid/a.jpg", "name": "a.jpg", "mimeType": "image/jpeg", "extension": "jpg", "size": 48213],
                            ["url": "https://cdn.invalid/b.png", "name": "b.png", "mimeType": "image/png", "extension": "png", "size": 1024],
                        ],
                    ],
                ])
        #expect(delivery.messageId == "echo-1")
        #expect(delivery.status == 200)
    }

    @Test(arguments: [("/api/messages", "4711"), ("/api/messages-numeric", "4712"), ("/api/messages-plain", nil)])
    func theMessageIdComesFromDataId(path: String, id: String?) async throws {
        let delivery = try await client(path).send(Self.message, onBehalfOf: "u")
        #expect(delivery.messageId == id)
    }

    @Test func aServerErrorIsOneAttemptThatSaysARetryMayHelp() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }
        capture.faults.inject(.serverError(status: 503, retryAfter: 4))
        let api = MessageAPIClient(url: capture.url, apiKey: "k", client: try HTTPClient(), clock: ManualClock(sleeping: .jumpsToDeadline))

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await api.send(Self.message, onBehalfOf: "u")
        }

        #expect(error?.code == .unexpectedStatus)
        #expect(error?.status == 503)
        #expect(error?.isRetryable == true)
        #expect(error?.retryAfter == .seconds(4))
        #expect(capture.faults.firingCount(.serverError) == 1)
        #expect(capture.requests.isEmpty)
    }

    @Test func anAcceptedMessageIsSentOnceWithItsMuid() async throws {
        let capture = try MessageCapture()
        defer { capture.stop() }
        let api = MessageAPIClient(url: capture.url, apiKey: "k", client: try HTTPClient())

        let delivery = try await api.send(Self.message, onBehalfOf: "cometchat-uid-7")

        #expect(capture.messages.count == 1)
        #expect(capture.requests.count == 1)
        #expect(delivery.messageId != nil)
    }

    @Test func aClientErrorIsNotRetryableAndCarriesTheAPIsError() async throws {
        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client("/api/refused").send(Self.message, onBehalfOf: "u")
        }

        #expect(error?.status == 404)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("ERR_UID_NOT_FOUND: The UID uid-9 does not exist.") == true)
    }

    @Test func tooManyRequestsIsRetryableAndCarriesRetryAfter() async throws {
        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client("/fault/429").send(Self.message, onBehalfOf: "u")
        }

        #expect(error?.status == 429)
        #expect(error?.isRetryable == true)
        #expect(error?.retryAfter == .seconds(7))
    }

    @Test func anUnreachableAPIIsARetryableTransportFailure() async throws {
        let reserved = try LoopbackSocket.bound()
        defer { close(reserved.descriptor) }
        let api = MessageAPIClient(url: "http://127.0.0.1:\(reserved.port)/messages", apiKey: "k", client: try HTTPClient())

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await api.send(Self.message, onBehalfOf: nil)
        }

        #expect(error?.code == .transport)
        #expect(error?.isRetryable == true)
    }
}
