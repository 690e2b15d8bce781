import Foundation
import TestSupport
import Testing
@testable import DevServices

@Suite struct LocalObjectStoreTests {
    private let inOneHour = Date().addingTimeInterval(3600)

    @Test func putThenGetReturnsIdenticalBytesAndSha256() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let file = try TemporaryFile(count: 3 << 20 + 17)
        defer { file.remove() }
        let key = "trip 42/f1/photo é+1.jpg"

        let put = try await Curl.run([
            "-T", file.url.path, "-H", "Content-Type: image/jpeg",
            try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour),
        ])
        let get = try await Curl.run([try store.url(forKey: key)])

        let expected = try await ReferenceDigest.sha256(of: file.url)
        #expect(put.status == 200)
        #expect(put.headers["etag"] == "\"\(expected)\"")
        #expect(get.status == 200)
        #expect(Array(get.body) == file.bytes)
        #expect(get.headers["content-type"] == "image/jpeg")
        let stored = try #require(store.object(forKey: key))
        #expect(stored.sha256 == expected)
        #expect(stored.size == Int64(file.bytes.count))
        #expect(stored.contentType == "image/jpeg")
        #expect(try store.contents(ofKey: key) == Data(file.bytes))
    }

    @Test func concurrentUploadsAreStoredIndependently() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let files = try (0..<6).map { try TemporaryFile(count: 200_000 + $0, seed: UInt64($0)) }
        defer { files.forEach { $0.remove() } }
        let urls = try (0..<6).map { try store.signedURL(method: "PUT", key: "b/f\($0)/x", expiresAt: inOneHour) }

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (file, url) in zip(files, urls) {
                group.addTask { try await Curl.run(["-T", file.url.path, url]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 200, count: 6))
        for (index, file) in files.enumerated() {
            #expect(try store.contents(ofKey: "b/f\(index)/x") == Data(file.bytes))
        }
    }

    @Test func chunkedUploadWithoutALengthIsStored() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let file = try TemporaryFile(count: 150_000)
        defer { file.remove() }

        let result = try await Curl.run(
            ["-T", "-", try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour)], stdin: file.url)

        #expect(result.status == 200)
        #expect(try store.contents(ofKey: "b/f/x") == Data(file.bytes))
    }

    @Test func expiredURLIsRefusedWithAccessDeniedAndStoresNothing() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }

        let put = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT",
            try store.signedURL(method: "PUT", key: "b/f/x.txt", expiresAt: Date().addingTimeInterval(-5)),
        ])

        #expect(put.status == 403)
        #expect(put.bodyText.contains("<Code>AccessDenied</Code><Message>Request has expired</Message>"))
        #expect(store.objects.isEmpty)
    }

    @Test(arguments: ["sig", "expires", "method"])
    func tamperedSignatureIsRefusedWithSignatureDoesNotMatch(tampering: String) async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let url = try store.signedURL(method: "PUT", key: "b/f/x.txt", expiresAt: inOneHour)
        let tampered: [String] = switch tampering {
        case "sig": ["-X", "PUT", url.replacingOccurrences(of: "&sig=", with: "&sig=0")]
        case "expires": ["-X", "PUT", url.replacingOccurrences(of: "expires=", with: "expires=1")]
        default: ["-X", "DELETE", url]
        }

        let result = try await Curl.run(["--data-binary", "hello"] + tampered)

        #expect(result.status == 403)
        #expect(result.bodyText.contains("<Code>SignatureDoesNotMatch</Code>"))
        #expect(store.objects.isEmpty)
    }

    @Test func unsignedWritesAreRefusedButUnsignedReadsArePublic() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let key = "b/f/x.txt"
        _ = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT", try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour),
        ])

        let unsignedPut = try await Curl.run(["--data-binary", "bye", "-X", "PUT", try store.url(forKey: key)])
        let unsignedGet = try await Curl.run([try store.url(forKey: key)])

        #expect(unsignedPut.status == 403)
        #expect(unsignedPut.bodyText.contains("<Code>AccessDenied</Code>"))
        #expect(unsignedGet.status == 200)
        #expect(unsignedGet.bodyText == "hello")
    }

    @Test func unsignedReadsAreRefusedWithoutPublicRead() async throws {
        let store = try LocalObjectStore(configuration: .init(publicRead: false))
        defer { store.stop() }
        let key = "b/f/x.txt"
        _ = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT", try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour),
        ])

        let unsigned = try await Curl.run([try store.url(forKey: key)])
        let signed = try await Curl.run([try store.signedURL(method: "GET", key: key, expiresAt: inOneHour)])

        #expect(unsigned.status == 403)
        #expect(signed.status == 200)
        #expect(signed.bodyText == "hello")
    }

    @Test func dotDotKeysAreRefused() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }

        let result = try await Curl.run(["--path-as-is", "-X", "PUT", "--data-binary", "x", "\(store.baseURL)/a/../b"])

        #expect(result.status == 400)
        #expect(result.bodyText.contains("<Code>InvalidObjectKey</Code>"))
        #expect(throws: DevServicesError.self) { try store.signedURL(method: "PUT", key: "a/../b", expiresAt: inOneHour) }
    }

    @Test func deleteRemovesTheObject() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let key = "b/f/x.txt"
        _ = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT", try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour),
        ])
        let file = try #require(store.object(forKey: key)).file

        let delete = try await Curl.run(["-X", "DELETE", try store.signedURL(method: "DELETE", key: key, expiresAt: inOneHour)])
        let get = try await Curl.run([try store.url(forKey: key)])

        #expect(delete.status == 204)
        #expect(get.status == 404)
        #expect(get.bodyText.contains("<Code>NoSuchKey</Code>"))
        #expect(store.object(forKey: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func headAnswersLengthWithoutBody() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let key = "b/f/x.txt"
        _ = try await Curl.run([
            "--data-binary", "hello world", "-X", "PUT",
            try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour),
        ])

        let head = try await Curl.run(["--head", try store.url(forKey: key)])

        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "11")
        // With --head curl writes the header block where the body would go; the object's bytes must not follow.
        #expect(head.bodyText.hasPrefix("HTTP/1.1 200"))
        #expect(!head.bodyText.contains("hello world"))
    }

    @Test func uploadOverTheSizeLimitIsRefused() async throws {
        let store = try LocalObjectStore(configuration: .init(maxObjectSize: 4))
        defer { store.stop() }

        let result = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT",
            try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour),
        ])

        #expect(result.status == 400)
        #expect(result.bodyText.contains("<Code>EntityTooLarge</Code>"))
        #expect(store.objects.isEmpty)
    }

    @Test func checksumHeaderThatDoesNotMatchIsRefused() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let url = try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour)
        // base64(sha256("hello"))
        let good = "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="

        let wrong = try await Curl.run(["--data-binary", "hellO", "-X", "PUT", "-H", "x-amz-checksum-sha256: \(good)", url])
        #expect(wrong.status == 400)
        #expect(wrong.bodyText.contains("<Code>BadDigest</Code>"))
        #expect(store.objects.isEmpty)

        let right = try await Curl.run(["--data-binary", "hello", "-X", "PUT", "-H", "x-amz-checksum-sha256: \(good)", url])
        #expect(right.status == 200)
        #expect(store.object(forKey: "b/f/x")?.size == 5)
    }

    @Test func stopClosesThePortAndRemovesItsOwnDirectory() async throws {
        let store = try LocalObjectStore()
        _ = try await Curl.run([
            "--data-binary", "hello", "-X", "PUT",
            try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour),
        ])
        let idle = try #require(HeldConnection(port: store.port))
        let requestsBefore = store.requests.count
        #expect(FileManager.default.fileExists(atPath: store.directory.path))

        store.stop()
        _ = try await Curl.run([try store.url(forKey: "b/f/x")])

        #expect(idle.isClosedByPeer())
        #expect(store.requests.count == requestsBefore)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
    }
}
