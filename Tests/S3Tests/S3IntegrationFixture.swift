import Foundation
@testable import S3
import TestSupport
import Testing
import UploadEngine

/// What one integration test works with: a fresh bucket on the suite's moto server, a presigner for it and a
/// scratch directory for curl's files (removed by `cleanUp`).
struct S3IntegrationFixture {
    var server: S3MotoServer
    var bucket: String
    var presigner: S3Presigner
    var directory: URL

    /// A fixture on a new, empty bucket created with a header-signed PUT Bucket.
    static func make(
        credentials: SigV4Credentials = SigV4Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        urlLifetime: Duration = .seconds(900), serverSideEncryption: S3ServerSideEncryption? = nil
    ) async throws -> S3IntegrationFixture {
        let server = try S3MotoServer.require()
        let bucket = "attache-" + UUID().uuidString.lowercased().prefix(18)
        let configuration = S3PresignerConfiguration(
            bucket: String(bucket), region: "us-east-1", credentials: credentials, endpoint: server.endpoint,
            keyPrefix: "uploads", pathStyle: true, urlLifetime: urlLifetime, serverSideEncryption: serverSideEncryption)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attache-s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = S3IntegrationFixture(
            server: server, bucket: String(bucket), presigner: try S3Presigner(configuration: configuration),
            directory: directory)
        // A 500 is S3's InternalError, which its clients are to retry; moto under a loaded test run has answered
        // one (rarely) to this set-up request. What the tests check comes after it.
        var created = try await fixture.send(fixture.presigner.signedRequest(method: "PUT", key: nil))
        for _ in 1..<3 where created.status >= 500 {
            created = try await fixture.send(fixture.presigner.signedRequest(method: "PUT", key: nil))
        }
        try #require(created.status == 200, "PUT Bucket answered \(created.status): \(created.text)\(server.printedNote)")
        return fixture
    }

    func send(_ request: SigV4SignedRequest) async throws -> S3Curl.Response {
        try await S3Curl.send(request, in: directory)
    }

    /// Uploads a file as the engine's uploader would: the target's method, URL and headers, the file as body.
    func upload(_ file: URL, to target: UploadTarget) async throws -> S3Curl.Response {
        try await S3Curl.send(target.method, target.uploadURL, headers: target.headers, bodyFile: file, in: directory)
    }

    /// Writes `bytes` to a scratch file.
    func file(_ bytes: Data, named name: String = UUID().uuidString) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `count` pseudo-random bytes (xorshift64*, seeded from the system generator: fast even in debug builds).
    static func randomBytes(_ count: Int) -> Data {
        var state = UInt64.random(in: 1...UInt64.max)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            for index in buffer.indices {
                if index % 8 == 0 {
                    state ^= state >> 12
                    state ^= state << 25
                    state ^= state >> 27
                }
                buffer[index] = UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> ((index % 8) * 8))
            }
        }
        return data
    }
}
