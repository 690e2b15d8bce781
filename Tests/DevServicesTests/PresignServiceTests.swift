import Foundation
import TestSupport
import Testing
@testable import DevServices
import WireFormat

@Suite struct PresignServiceTests {
    private static func request(batchId: String = "trip-42", receiver: String = "uid-1",
                                files: [(id: String, name: String, mime: String, size: Int)]) throws -> String {
        jsonText([
            "batchId": .string(batchId), "receiver": ["id": .string(receiver), "type": "user"], "sender": "uid-7",
            "parentMessageId": "1234",
            "files": .array(files.map { ["fileId": .string($0.id), "name": .string($0.name), "mimeType": .string($0.mime), "size": .int(Int64($0.size))] }),
        ])
    }

    private static func presign(_ service: PresignService, _ body: String) async throws -> Curl.Result {
        try await Curl.run(["-H", "Content-Type: application/json", "--data-binary", body, service.url])
    }

    private static func answers(_ result: Curl.Result) throws -> [String: JSONValue] {
        let files = try #require(result.json?["files"]?.arrayValue)
        return Dictionary(uniqueKeysWithValues: files.map { ($0["fileId"]?.stringValue ?? "", $0) })
    }

    @Test func presignedURLsUploadIntoTheStoreAndFileURLsServeTheBytes() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        let file = try TemporaryFile(count: 70_000)
        defer { file.remove() }

        let result = try await Self.presign(service, try Self.request(files: [
            ("f1", "photo 1.jpg", "image/jpeg", 70_000), ("f2", "notes.pdf", "application/pdf", 10),
        ]))

        #expect(result.status == 200)
        let answers = try Self.answers(result)
        let f1 = try #require(answers["f1"])
        #expect(f1["method"] == "PUT")
        #expect(f1["headers"] == ["content-type": "image/jpeg"])
        #expect(try f1["fileUrl"]?.stringValue == store.url(forKey: "trip-42/f1/photo_1.jpg"))
        let expiresAt = try Date.ISO8601FormatStyle().parse(try #require(f1["expiresAt"]?.stringValue))
        #expect(abs(expiresAt.timeIntervalSinceNow - 900) < 60)
        #expect(answers["f2"]?["uploadUrl"]?.stringValue != nil)

        let upload = try await Curl.run([
            "-T", file.url.path, "-H", "content-type: image/jpeg", try #require(f1["uploadUrl"]?.stringValue),
        ])
        let download = try await Curl.run([try #require(f1["fileUrl"]?.stringValue)])

        #expect(upload.status == 200)
        #expect(Array(download.body) == file.bytes)
        #expect(store.object(forKey: "trip-42/f1/photo_1.jpg")?.contentType == "image/jpeg")
        let call = try #require(service.calls.first)
        #expect(service.calls.count == 1)
        #expect(call.fileIds == ["f1", "f2"])
        #expect(call.batchId == "trip-42")
        #expect(call.receiverId == "uid-1")
        #expect(call.sender == "uid-7")
        #expect(call.parentMessageId == "1234")
        #expect(call.files.map(\.objectKey) == ["trip-42/f1/photo_1.jpg", "trip-42/f2/notes.pdf"])
    }

    @Test func policyRefusesFileByFile() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let policy = PresignPolicy(maxFileSize: 1000, allowedMimeTypes: ["image/*", "text/plain"])
        let service = try PresignService(store: store, configuration: .init(policy: policy))
        defer { service.stop() }

        let result = try await Self.presign(service, try Self.request(files: [
            ("ok", "a.png", "image/png", 10), ("type", "b.pdf", "application/pdf", 10),
            ("size", "c.png", "image/png", 1001), ("text", "d.txt", "TEXT/PLAIN", 1),
        ]))

        let answers = try Self.answers(result)
        #expect(result.status == 200)
        #expect(answers["ok"]?["uploadUrl"] != nil)
        #expect(answers["text"]?["uploadUrl"] != nil)
        #expect(answers["type"]?["error"]?["code"] == "ERR_FILE_TYPE_NOT_ALLOWED")
        #expect(answers["size"]?["error"]?["code"] == "ERR_FILE_SIZE_EXCEEDED")
        #expect(answers["type"]?["uploadUrl"] == nil)
        #expect(service.calls.first?.files.compactMap(\.refusal?.code)
            == ["ERR_FILE_TYPE_NOT_ALLOWED", "ERR_FILE_SIZE_EXCEEDED"])
    }

    @Test func deniedReceiverRefusesEveryFile() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store, configuration: .init(
            policy: PresignPolicy(deniedReceivers: ["blocked"])))
        defer { service.stop() }

        let refused = try await Self.presign(service, try Self.request(receiver: "blocked", files: [
            ("f1", "a.png", "image/png", 10), ("f2", "b.png", "image/png", 10),
        ]))
        let allowed = try await Self.presign(service, try Self.request(files: [("f1", "a.png", "image/png", 10)]))

        let answers = try Self.answers(refused)
        for id in ["f1", "f2"] {
            #expect(answers[id]?["error"]?["code"] == "ERR_RECEIVER_NOT_ALLOWED")
        }
        #expect(try Self.answers(allowed)["f1"]?["uploadUrl"] != nil)
    }

    @Test func malformedBodyIsRefusedAsABadRequest() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }

        let notJSON = try await Self.presign(service, "nope")
        let noReceiver = try await Self.presign(service, #"{"batchId":"b","files":[]}"#)

        #expect(notJSON.status == 400)
        #expect(notJSON.json?["error"]?["code"] == "ERR_BAD_REQUEST")
        #expect(noReceiver.status == 400)
        #expect(service.calls.isEmpty)
    }

    @Test func otherPathsAndMethodsAreRefused() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store, configuration: .init(path: "/v1/presign"))
        defer { service.stop() }

        let get = try await Curl.run([service.url])
        let elsewhere = try await Curl.run(["--data-binary", "{}", "\(store.baseURL.replacingOccurrences(of: String(store.port), with: String(service.port)))/presign"])

        #expect(service.url.hasSuffix("/v1/presign"))
        #expect(get.status == 405)
        #expect(elsewhere.status == 404)
    }

    @Test func expiredURLFaultGivesURLsTheStoreRefusesAsExpired() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        service.faults.inject(.expiredURLs, target: .fileId("f1"))

        let result = try await Self.presign(service, try Self.request(files: [
            ("f1", "a.txt", "text/plain", 5), ("f2", "b.txt", "text/plain", 5),
        ]))
        let answers = try Self.answers(result)
        let f1 = try #require(answers["f1"])
        let expiresAt = try Date.ISO8601FormatStyle().parse(try #require(f1["expiresAt"]?.stringValue))
        let upload = try await Curl.run([
            "-X", "PUT", "--data-binary", "hello", try #require(f1["uploadUrl"]?.stringValue),
        ])
        let other = try await Curl.run([
            "-X", "PUT", "--data-binary", "hello", try #require(answers["f2"]?["uploadUrl"]?.stringValue),
        ])

        #expect(expiresAt < Date())
        #expect(upload.status == 403)
        #expect(upload.bodyText.contains("<Message>Request has expired</Message>"))
        #expect(other.status == 200)
    }

    @Test func malformedURLFaultAnswersTheMalformedURL() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        service.faults.inject(.malformedURLs(), times: 1)

        let first = try await Self.presign(service, try Self.request(files: [("f1", "a.txt", "text/plain", 5)]))
        let second = try await Self.presign(service, try Self.request(files: [("f1", "a.txt", "text/plain", 5)]))

        #expect(try Self.answers(first)["f1"]?["uploadUrl"] == "ht!tp://bad url")
        #expect(try Self.answers(second)["f1"]?["uploadUrl"]?.stringValue?.hasPrefix(store.baseURL) == true)
    }

    @Test func wholeBatchFailureFailsMultiFileCallsWhileOneFileCallsSucceed() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        service.faults.inject(.failMultiFileCalls())
        let files = [("f1", "a.txt", "text/plain", 5), ("f2", "b.txt", "text/plain", 5)]

        let batch = try await Self.presign(service, try Self.request(files: files))
        let single1 = try await Self.presign(service, try Self.request(files: [files[0]]))
        let single2 = try await Self.presign(service, try Self.request(files: [files[1]]))

        #expect(batch.status == 500)
        #expect(single1.status == 200)
        #expect(single2.status == 200)
        #expect(try Self.answers(single2)["f2"]?["uploadUrl"] != nil)
        #expect(service.calls.map(\.status) == [500, 200, 200])
        #expect(service.calls.map(\.files.count) == [2, 1, 1])
    }

    @Test func refusalFaultRefusesOnlyTheTargetedFile() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        service.faults.inject(.refuseFile(code: "ERR_VIRUS_FOUND", message: "infected"), target: .fileId("f2"))

        let result = try await Self.presign(service, try Self.request(files: [
            ("f1", "a.txt", "text/plain", 5), ("f2", "b.txt", "text/plain", 5),
        ]))

        let answers = try Self.answers(result)
        #expect(answers["f1"]?["uploadUrl"] != nil)
        let error = try #require(answers["f2"]?["error"])
        #expect(error["code"] == "ERR_VIRUS_FOUND")
        #expect(error["message"] == "infected")
    }

    @Test func transportFaultsApplyToThePresignEndpoint() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        defer { service.stop() }
        service.faults.inject(.serverError(status: 503, retryAfter: 2), times: 1)
        let body = try Self.request(files: [("f1", "a.txt", "text/plain", 5)])

        let first = try await Self.presign(service, body)
        let second = try await Self.presign(service, body)

        #expect(first.status == 503)
        #expect(first.headers["retry-after"] == "2")
        #expect(second.status == 200)
        #expect(service.calls.count == 1)
    }

    @Test func stopClosesThePortButLeavesTheStoreRunning() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let service = try PresignService(store: store)
        let idle = try #require(HeldConnection(port: service.port))

        service.stop()
        _ = try await Self.presign(service, try Self.request(files: [("f1", "a.txt", "text/plain", 5)]))

        #expect(idle.isClosedByPeer())
        #expect(service.calls.isEmpty)
        #expect(LoopbackPort.accepts(Int(store.port)))
    }
}
