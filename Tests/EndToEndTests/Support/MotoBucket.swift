import Foundation
import HTTPTransport
import S3
import TestSupport

/// A fresh bucket on the suite's moto server that workers upload into in `presign.mode = s3`, read back by the test
/// with requests signed by the `S3` module and sent by Debian's curl.
struct MotoBucket {
    let server: S3MotoServer
    let name: String
    let presigner: S3Presigner
    static let region = "us-east-1"
    static let keyPrefix = "uploads"
    static let credentials = SigV4Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")

    /// An upload storage holds and has not completed.
    struct OpenUpload: Equatable {
        let key: String
        let uploadId: String
    }

    /// Creates the bucket (PUT Bucket).
    static func create(on server: S3MotoServer) async throws -> MotoBucket {
        let name = "attache-e2e-" + UUID().uuidString.lowercased().prefix(12)
        let presigner = try S3Presigner(configuration: S3PresignerConfiguration(
            bucket: name, region: region, credentials: credentials, endpoint: server.endpoint, keyPrefix: keyPrefix, pathStyle: true))
        let bucket = MotoBucket(server: server, name: name, presigner: presigner)
        let created = try await bucket.send(presigner.signedRequest(method: "PUT", key: nil))
        guard created.status == 200 else { throw EndToEndFailure("PUT Bucket answered \(created.status): \(created.bodyText)") }
        return bucket
    }

    /// A worker's settings for uploading into the bucket, with multipart uploads from 5 MiB in `partSize` parts.
    func workerEnvironment(partSize: String = "5MiB") -> [String: String] {
        ["ATTACHE_PRESIGN_MODE": "s3", "ATTACHE_PRESIGN_S3_BUCKET": name, "ATTACHE_PRESIGN_S3_REGION": Self.region,
         "ATTACHE_PRESIGN_S3_ENDPOINT": server.endpoint, "ATTACHE_PRESIGN_S3_PATH_STYLE": "true",
         "ATTACHE_PRESIGN_S3_PREFIX": Self.keyPrefix, "ATTACHE_PRESIGN_S3_ACCESS_KEY_ID": Self.credentials.accessKeyId,
         "ATTACHE_PRESIGN_S3_SECRET_ACCESS_KEY": Self.credentials.secretAccessKey,
         "ATTACHE_UPLOAD_MULTIPART_THRESHOLD": "5MiB", "ATTACHE_UPLOAD_PART_SIZE": partSize]
    }

    /// The key a worker stores the file under.
    func key(batchId: String, fileId: String, name: String) -> String {
        presigner.objectKey(batchId: batchId, fileId: fileId, name: name)
    }

    /// The incomplete multipart uploads in the bucket (ListMultipartUploads).
    func openUploads() async throws -> [OpenUpload] {
        let listing = try await send(presigner.signedRequest(method: "GET", key: nil, query: [SigV4QueryItem("uploads")]))
        let document = try S3XMLElement.answer(status: listing.status, body: listing.body, root: "ListMultipartUploadsResult")
        return document.children(named: "Upload").compactMap { upload in
            guard let key = upload.childText("Key"), let uploadId = upload.childText("UploadId") else { return nil }
            return OpenUpload(key: key, uploadId: uploadId)
        }
    }

    /// Starts a multipart upload of `key` nobody records (CreateMultipartUpload), as a worker killed before it wrote
    /// its snapshot would leave; returns its id.
    func plantUpload(key: String) async throws -> String {
        let created = try await send(presigner.createMultipartUploadRequest(key: key, mimeType: "application/octet-stream"))
        return try S3InitiateMultipartUploadResult(status: created.status, body: created.body).uploadId
    }

    /// The hex SHA-256 of the object stored under `key`; nil when there is none.
    func sha256(ofObject key: String) async throws -> String? {
        let answer = try await send(presigner.presignedGet(key: key))
        if answer.status == 404 { return nil }
        guard answer.status == 200 else { throw EndToEndFailure("GET \(key) answered \(answer.status): \(answer.bodyText)") }
        return SHA256Hasher.hex(of: answer.body)
    }

    /// The requests moto answered on the object `key` (its path in the bucket), in the order it logged them.
    func requests(on key: String) -> [S3MotoRequest] {
        let path = "/\(name)/\(key)"
        return server.requests.filter { $0.path == path }
    }

    private func send(_ request: SigV4SignedRequest) async throws -> Curl.Result {
        var arguments = ["--max-time", "60", "-g", "-X", request.method]
        for header in request.headers { arguments += ["-H", "\(header.name): \(header.value)"] }
        let result = try await Curl.run(arguments + [request.url])
        guard result.exitCode == 0 else { throw EndToEndFailure("curl \(request.method) \(request.redactedURL): \(result.stderr)") }
        return result
    }
}
