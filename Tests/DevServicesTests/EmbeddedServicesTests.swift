import Foundation
import TestSupport
import Testing
@testable import DevServices
import WireFormat

@Suite struct EmbeddedServicesTests {
    @Test func presignUploadAndSendWorkEndToEndAcrossTheThreeServers() async throws {
        let services = try EmbeddedServices(configuration: .init(messages: .init(apiKey: "k")))
        defer { services.stop() }
        let file = try TemporaryFile(count: 2 << 20)
        defer { file.remove() }

        let size = JSONValue.int(Int64(file.bytes.count))
        let presign = try await Curl.run(["--data-binary", jsonText([
            "batchId": "b1", "receiver": ["id": "u1", "type": "user"], "sender": "u7",
            "files": [["fileId": "f1", "name": "clip.mp4", "mimeType": "video/mp4", "size": size]],
        ]), services.presignURL])
        let target = try #require(presign.json?["files"]?.arrayValue?.first)
        let upload = try await Curl.run([
            "-T", file.url.path, "-H", "content-type: video/mp4", try #require(target["uploadUrl"]?.stringValue),
        ])
        let fileURL = try #require(target["fileUrl"]?.stringValue)
        let send = try await Curl.run(["-H", "apikey: k", "-H", "onBehalfOf: u7", "--data-binary", jsonText([
            "receiver": "u1", "receiverType": "user", "category": "message", "type": "video", "muid": "m1",
            "data": ["attachments": [["url": .string(fileURL), "name": "clip.mp4", "mimeType": "video/mp4",
                                      "extension": "mp4", "size": size]]],
        ]), services.messagesURL])

        #expect(upload.status == 200)
        #expect(send.status == 200)
        let stored = try #require(services.store.object(forKey: "b1/f1/clip.mp4"))
        #expect(stored.sha256 == (try await ReferenceDigest.sha256(of: file.url)))
        #expect(services.messages.messages.first?.message?.data.attachments.first?.url == fileURL)
        #expect(fileURL.hasPrefix(services.storeURL))
    }

    @Test func stopClosesEveryServerAndItsConnections() async throws {
        let services = try EmbeddedServices()
        let ports = [services.store.port, services.presign.port, services.messages.port]
        #expect(Set(ports).count == 3)
        let held = try ports.map { try #require(HeldConnection(port: $0)) }
        let (storeURL, presignURL, messagesURL) = (services.storeURL, services.presignURL, services.messagesURL)

        services.stop()
        services.stop()
        _ = try await Curl.run(["\(storeURL)/b/f/x"])
        _ = try await Curl.run(["--data-binary", "{}", presignURL])
        _ = try await Curl.run(["--data-binary", "{}", messagesURL])

        #expect(held.allSatisfy { $0.isClosedByPeer() })
        #expect(services.store.requests.isEmpty)
        #expect(services.presign.calls.isEmpty)
        #expect(services.messages.requests.isEmpty)
    }
}
