import Foundation
@testable import S3
import Testing


@Suite struct S3StorageKeyTests {
    static func presigner(endpoint: String, pathStyle: Bool) throws -> S3Presigner {
        try S3Presigner(
            configuration: S3PresignerConfiguration(
                bucket: "media", region: "eu-west-1",
                credentials: SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "secret"), endpoint: endpoint,
                keyPrefix: "uploads", pathStyle: pathStyle))
    }

    @Test(arguments: [("http://127.0.0.1:9000", true), ("https://s3.example.com", false), ("http://[::1]:9000", true)])
    func theKeyOfASignedURLIsRecoveredExactly(endpoint: String, pathStyle: Bool) throws {
        let presigner = try Self.presigner(endpoint: endpoint, pathStyle: pathStyle)
        let key = presigner.objectKey(batchId: "batch 50%", fileId: "id 7/ü", name: "Résumé (final).pdf")

        let target = try presigner.presignedUpload(key: key, mimeType: "application/pdf", sha256Hex: nil, at: Date())

        #expect(presigner.key(ofURL: target.uploadURL) == key)
        #expect(presigner.key(ofURL: try presigner.presignedDelete(key: key).url) == key)
    }

    @Test func urlsOfOtherBucketsOrHostsHaveNoKey() throws {
        let presigner = try Self.presigner(endpoint: "http://127.0.0.1:9000", pathStyle: true)

        #expect(presigner.key(ofURL: "http://127.0.0.1:9000/other/uploads/b/f/x.bin?X-Amz-Signature=1") == nil)
        #expect(presigner.key(ofURL: "http://127.0.0.1:9001/media/uploads/b/f/x.bin") == nil)
        #expect(presigner.key(ofURL: "http://127.0.0.1:9000/media/") == nil)
        #expect(presigner.key(ofURL: "http://127.0.0.1:9000/media/uploads/b/f/x.bin") == "uploads/b/f/x.bin")
    }
}
