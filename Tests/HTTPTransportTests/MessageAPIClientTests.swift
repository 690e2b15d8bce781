import Foundation
import Testing
import UploadEngine

@testable import HTTPTransport

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

    private func client(_ path: String, clock: ManualClock = ManualClock(), maxAttempts: Int = 3) throws -> MessageAPIClient {
        MessageAPIClient(
            url: nginx.url(path), apiKey: "key-123", client: try HTTPClient(),
            backoff: RetryBackoff(baseDelay: .seconds(1), maxDelay: .seconds(30), maxAttempts: maxAttempts),
            clock: clock, jitter: { $0 })
    }

    @Test func theRequestCarriesTheHeadersAndTheDesignedBody() async throws {
        let delivery = try await client("/echo").send(Self.message, onBehalfOf: "cometchat-uid-7")

        let echoed = try JSONDecoder().decode(JSONValue.self, from: delivery.body)["data"]?["request"]
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
        #expect(delivery.attempts == 1)
    }

    @Test(arguments: [("/api/messages", "4711"), ("/api/messages-numeric", "4712"), ("/api/messages-plain", nil)])
    func theMessageIdComesFromDataId(path: String, id: String?) async throws {
        let delivery = try await client(path).send(Self.message, onBehalfOf: "u")
        #expect(delivery.messageId == id)
    }

    @Test func a503IsRetriedWithExponentialBackoffUntilAttemptsRunOut() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let failures = Locked<[MessageSendFailure]>([])

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client("/fault/503", clock: clock)
                .send(Self.message, onBehalfOf: "u") { failure in failures.update { $0.append(failure) } }
        }

        #expect(error?.status == 503)
        #expect(failures.value.map(\.attempt) == [1, 2, 3])
        #expect(failures.value.map(\.willRetry) == [true, true, false])
        #expect(clock.sleeps == [start + .seconds(1), start + .seconds(3)])
    }

    @Test func aClientErrorIsNotRetriedAndCarriesTheAPIsError() async throws {
        let clock = ManualClock()
        let failures = Locked<[MessageSendFailure]>([])

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client("/api/refused", clock: clock)
                .send(Self.message, onBehalfOf: "u") { failure in failures.update { $0.append(failure) } }
        }

        #expect(error?.status == 404)
        #expect(error?.message.contains("ERR_UID_NOT_FOUND: The UID uid-9 does not exist.") == true)
        #expect(failures.value.map(\.willRetry) == [false])
        #expect(clock.sleeps.isEmpty)
    }

    @Test func tooManyRequestsWaitsAtLeastRetryAfter() async throws {
        let clock = ManualClock()
        let start = clock.now()

        await #expect(throws: HTTPTransportError.self) {
            _ = try await client("/fault/429", clock: clock, maxAttempts: 2).send(Self.message, onBehalfOf: "u")
        }

        #expect(clock.sleeps == [start + .seconds(7)])
    }

    @Test func anUnreachableAPIIsRetriedAsATransportFailure() async throws {
        let reserved = try LoopbackSocket.bound()
        defer { close(reserved.descriptor) }
        let clock = ManualClock()
        let api = MessageAPIClient(
            url: "http://127.0.0.1:\(reserved.port)/messages", apiKey: "k", client: try HTTPClient(),
            backoff: RetryBackoff(maxAttempts: 2), clock: clock, jitter: { $0 })

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await api.send(Self.message, onBehalfOf: nil)
        }

        #expect(error?.code == .transport)
        #expect(clock.sleeps.count == 1)
    }
}
