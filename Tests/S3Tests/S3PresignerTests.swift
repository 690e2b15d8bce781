import Foundation
@testable import S3
import TestSupport
import Testing
import UploadEngine
import WireFormat

@Suite struct S3PresignerTests {
    static let instant = Date(timeIntervalSince1970: 1_795_986_000.25)  // 2026-11-29T21:00:00.25Z
    static let credentials = SigV4Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let helloSHA256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    static let context = BatchContext(batchId: "trip-42", receiver: Receiver(id: "u1", type: .user))

    static func configuration(
        pathStyle: Bool = true, endpoint: String? = "http://127.0.0.1:9000", publicBaseURL: String? = nil,
        policy: S3UploadPolicy = S3UploadPolicy()
    ) -> S3PresignerConfiguration {
        S3PresignerConfiguration(
            bucket: "attache-test", region: "eu-central-1", credentials: credentials, endpoint: endpoint,
            keyPrefix: "uploads", pathStyle: pathStyle, publicBaseURL: publicBaseURL, policy: policy)
    }

    static func presigner(_ configuration: S3PresignerConfiguration = configuration()) throws -> S3Presigner {
        try S3Presigner(configuration: configuration, clock: ManualClock(start: instant))
    }

    static func file(_ id: String, name: String = "photo-1.jpg", type: String = "image/jpeg", size: Int64 = 5,
        sha256: String = helloSHA256) -> PresignFile {
        PresignFile(fileId: id, name: name, mimeType: type, size: size, sha256: sha256)
    }

    static func target(_ outcome: PresignOutcome?) -> UploadTarget? {
        if case .target(let target) = outcome { return target }
        return nil
    }

    static func refusal(_ outcome: PresignOutcome?) -> UploadError? {
        if case .refused(let error) = outcome { return error }
        return nil
    }

    @Test func uploadTargetSignsContentTypeAndChecksumForTheDeterministicKey() async throws {
        let outcomes = try await Self.presigner().presign([Self.file("f1")], in: Self.context)
        let target = try #require(Self.target(outcomes["f1"]))
        #expect(target.method == "PUT")
        #expect(target.uploadURL.hasPrefix("http://127.0.0.1:9000/attache-test/uploads/trip-42/f1/photo-1.jpg?"))
        #expect(
            target.headers == [
                HTTPHeader("content-type", "image/jpeg"),
                HTTPHeader("x-amz-checksum-sha256", "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
                HTTPHeader("x-amz-sdk-checksum-algorithm", "SHA256"),
            ])
        #expect(
            target.uploadURL.contains(
                "X-Amz-SignedHeaders=content-type%3Bhost%3Bx-amz-checksum-sha256%3Bx-amz-sdk-checksum-algorithm"))
        #expect(target.uploadURL.contains("X-Amz-Date=20261129T210000Z&X-Amz-Expires=900&"))
        #expect(target.fileURL == "http://127.0.0.1:9000/attache-test/uploads/trip-42/f1/photo-1.jpg")
        #expect(target.expiresAt == Date(timeIntervalSince1970: 1_795_986_900))
    }

    @Test func theSameFileAlwaysGetsTheSameURL() async throws {
        let first = try await Self.presigner().presign([Self.file("f1")], in: Self.context)
        let second = try await Self.presigner().presign([Self.file("f1")], in: Self.context)
        #expect(first == second)
    }

    @Test func anUnknownDigestLeavesTheChecksumOut() async throws {
        let outcomes = try await Self.presigner().presign([Self.file("f1", type: "", sha256: "")], in: Self.context)
        let target = try #require(Self.target(outcomes["f1"]))
        #expect(target.headers == [HTTPHeader("content-type", "application/octet-stream")])
        #expect(target.uploadURL.contains("X-Amz-SignedHeaders=content-type%3Bhost&"))
    }

    @Test func aMalformedDigestIsRefused() async throws {
        let outcomes = try await Self.presigner().presign([Self.file("f1", sha256: "abc")], in: Self.context)
        let refusal = try #require(Self.refusal(outcomes["f1"]))
        #expect(refusal.code == .invalidFileObject)
        #expect(!refusal.isRetryable)
    }

    @Test func virtualHostedStylePutsTheBucketInTheHost() async throws {
        let presigner = try Self.presigner(Self.configuration(pathStyle: false, endpoint: nil))
        let outcomes = try await presigner.presign([Self.file("f1")], in: Self.context)
        let target = try #require(Self.target(outcomes["f1"]))
        #expect(
            target.uploadURL.hasPrefix(
                "https://attache-test.s3.eu-central-1.amazonaws.com/uploads/trip-42/f1/photo-1.jpg?"))
        #expect(target.fileURL == "https://attache-test.s3.eu-central-1.amazonaws.com/uploads/trip-42/f1/photo-1.jpg")
    }

    @Test func withoutAPublicBaseTheFileURLIsTheObjectURLOfAnEncodedKey() async throws {
        let presigner = try Self.presigner()
        let outcomes = try await presigner.presign(
            [Self.file("id 7", name: "Résumé 2026.pdf", type: "application/pdf")], in: Self.context)
        let target = try #require(Self.target(outcomes["id 7"]))
        #expect(target.fileURL == "http://127.0.0.1:9000/attache-test/uploads/trip-42/id%207/R_sum_2026.pdf")
        #expect(target.fileURL == presigner.objectURL(key: presigner.objectKey(batchId: "trip-42", fileId: "id 7",
                                                                                 name: "Résumé 2026.pdf")))
        #expect(presigner.fileURL(key: "uploads/trip-42/id 7/R_sum_2026.pdf") == target.fileURL)
    }

    @Test func fileURLUsesThePublicBaseWhenConfigured() async throws {
        let presigner = try Self.presigner(Self.configuration(publicBaseURL: "https://cdn.example.com/media/"))
        let outcomes = try await presigner.presign(
            [Self.file("id 7", name: "Résumé 2026.pdf", type: "application/pdf")], in: Self.context)
        let target = try #require(Self.target(outcomes["id 7"]))
        #expect(target.fileURL == "https://cdn.example.com/media/uploads/trip-42/id%207/R_sum_2026.pdf")
        #expect(target.uploadURL.hasPrefix("http://127.0.0.1:9000/attache-test/uploads/trip-42/id%207/R_sum_2026.pdf?"))
    }

    @Test func policyRefusalsComeBackPerFileWhileOthersAreSigned() async throws {
        let policy = S3UploadPolicy(allowedMimeTypes: ["image/*"], maximumSize: 1_000)
        let presigner = try Self.presigner(Self.configuration(policy: policy))
        let outcomes = try await presigner.presign(
            [
                Self.file("ok"), Self.file("video", type: "video/mp4"), Self.file("big", size: 1_001),
            ], in: Self.context)
        #expect(Self.target(outcomes["ok"]) != nil)
        #expect(Self.refusal(outcomes["video"])?.code == .presignedURLFailed)
        #expect(Self.refusal(outcomes["big"])?.code == .fileSizeExceeded)
        #expect(Self.refusal(outcomes["video"])?.isRetryable == false)
    }

    @Test func keysLongerThanS3AllowsAreRefused() async throws {
        let longId = String(repeating: "界", count: 400)
        let outcomes = try await Self.presigner().presign([Self.file(longId)], in: Self.context)
        #expect(Self.refusal(outcomes[longId])?.code == .invalidFileObject)
    }

    @Test func temporaryCredentialsPutTheTokenInTheURL() async throws {
        var configuration = Self.configuration()
        configuration.credentials.sessionToken = "token/with+chars="
        let outcomes = try await Self.presigner(configuration).presign([Self.file("f1")], in: Self.context)
        let target = try #require(Self.target(outcomes["f1"]))
        #expect(target.uploadURL.contains("X-Amz-Security-Token=token%2Fwith%2Bchars%3D&"))
    }

    @Test func presignedDeleteAndGetAddressTheObject() throws {
        let presigner = try Self.presigner()
        let delete = try presigner.presignedDelete(key: "uploads/b/f/n.txt")
        #expect(delete.method == "DELETE")
        #expect(delete.redactedURL == "http://127.0.0.1:9000/attache-test/uploads/b/f/n.txt")
        #expect(delete.url.contains("X-Amz-SignedHeaders=host&"))
        #expect(delete.expiresAt == Date(timeIntervalSince1970: 1_795_986_900))
        let get = try presigner.presignedGet(key: "uploads/b/f/n.txt")
        #expect(get.method == "GET")
        #expect(get.signature != delete.signature)
    }

    @Test func uploadPartURLCarriesPartNumberAndUploadId() throws {
        let part = try Self.presigner().presignedUploadPart(key: "uploads/b/f/n.bin", uploadId: "abc/def==", partNumber: 2)
        #expect(part.method == "PUT")
        #expect(part.url.contains("&partNumber=2&uploadId=abc%2Fdef%3D%3D&X-Amz-Signature="))
        #expect(part.headers.isEmpty)
        for bad in [0, 10_001] {
            #expect {
                try Self.presigner().presignedUploadPart(key: "k", uploadId: "u", partNumber: bad)
            } throws: { ($0 as? S3Error)?.code == .invalidRequest }
        }
    }

    @Test func encryptionAtRestIsSignedIntoThePutAndTheInitiationButNotIntoParts() async throws {
        var configuration = Self.configuration()
        configuration.serverSideEncryption = S3ServerSideEncryption(.kms, kmsKeyId: "alias/attache")
        let presigner = try Self.presigner(configuration)
        let target = try #require(Self.target(try await presigner.presign([Self.file("f1")], in: Self.context)["f1"]))
        #expect(Array(target.headers.suffix(2)) == [
            HTTPHeader("x-amz-server-side-encryption", "aws:kms"),
            HTTPHeader("x-amz-server-side-encryption-aws-kms-key-id", "alias/attache"),
        ])
        #expect(target.uploadURL.contains(
            "x-amz-sdk-checksum-algorithm%3Bx-amz-server-side-encryption%3Bx-amz-server-side-encryption-aws-kms-key-id&"))
        #expect(target.serverSideEncryption == "aws:kms")

        let create = presigner.createMultipartUploadRequest(key: "uploads/b/f/n.bin", mimeType: "video/mp4")
        #expect(create.header("x-amz-server-side-encryption") == "aws:kms")
        #expect(create.header("x-amz-server-side-encryption-aws-kms-key-id") == "alias/attache")
        #expect(try #require(create.header("Authorization")).contains(
            "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-server-side-encryption;"
                + "x-amz-server-side-encryption-aws-kms-key-id, "))
        let part = try presigner.presignedUploadPart(key: "uploads/b/f/n.bin", uploadId: "u-1", partNumber: 1, sha256Base64: nil)
        #expect(!part.url.contains("server-side-encryption"))

        // SSE-S3 has no key; a key id given with it is dropped.
        configuration.serverSideEncryption = S3ServerSideEncryption(.aes256, kmsKeyId: "ignored")
        let aes = try #require(Self.target(try await Self.presigner(configuration).presign([Self.file("f1")], in: Self.context)["f1"]))
        #expect(aes.headers.last == HTTPHeader("x-amz-server-side-encryption", "AES256"))
        #expect(!aes.headers.contains { $0.name == "x-amz-server-side-encryption-aws-kms-key-id" })
        #expect(aes.serverSideEncryption == "AES256")
    }

    @Test func onlyAKnownEncryptionWordOfAPresignAnswerReachesTheAttachment() {
        let target = { (value: String) in
            UploadTarget(uploadURL: "https://s/u", headers: [HTTPHeader("X-Amz-Server-Side-Encryption", value)], fileURL: "https://s/f")
        }
        #expect(target("AES256").serverSideEncryption == "AES256")
        #expect(target("aws:kms:dsse").serverSideEncryption == "aws:kms:dsse")
        #expect(target("<script>").serverSideEncryption == nil)
        #expect(UploadTarget(uploadURL: "https://s/u", fileURL: "https://s/f").serverSideEncryption == nil)
    }

    @Test func createAndCompleteAreHeaderSignedWithTheBodyHash() throws {
        let presigner = try Self.presigner()
        let create = presigner.createMultipartUploadRequest(key: "uploads/b/f/n.bin", mimeType: "video/mp4")
        #expect(create.method == "POST")
        #expect(create.url == "http://127.0.0.1:9000/attache-test/uploads/b/f/n.bin?uploads=")
        #expect(create.header("x-amz-content-sha256") == SigV4Request.emptyPayloadHash)
        #expect(create.header("x-amz-date") == "20261129T210000Z")
        let authorization = try #require(create.header("Authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261129/eu-central-1/s3/aws4_request, "))
        #expect(authorization.contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, "))

        let complete = presigner.completeMultipartUploadRequest(
            key: "uploads/b/f/n.bin", uploadId: "u-1", parts: [S3CompletedPart(partNumber: 1, etag: "\"e\"")])
        #expect(complete.url == "http://127.0.0.1:9000/attache-test/uploads/b/f/n.bin?uploadId=u-1")
        #expect(complete.header("x-amz-content-sha256") == SigV4Digest.hex(SigV4Digest.sha256(complete.body)))
        #expect(String(decoding: complete.body, as: UTF8.self).contains("<PartNumber>1</PartNumber>"))

        let abort = presigner.abortMultipartUploadRequest(key: "uploads/b/f/n.bin", uploadId: "u-1")
        #expect(abort.method == "DELETE")
        #expect(abort.url.hasSuffix("?uploadId=u-1"))
    }

    @Test(arguments: [
        (S3PresignerConfiguration.defaultURLLifetime, true), (.seconds(604_800), true), (.seconds(604_801), false),
        (.zero, false), (.milliseconds(1_500), false),
    ])
    func lifetimeMustBeWholeSecondsUpToSevenDays(lifetime: Duration, valid: Bool) {
        var configuration = Self.configuration()
        configuration.urlLifetime = lifetime
        if valid {
            #expect(throws: Never.self) { try configuration.validate() }
        } else {
            #expect { try configuration.validate() } throws: { ($0 as? S3Error)?.code == .urlLifetimeOutOfRange }
        }
    }

    enum BadSetting: String, CaseIterable, Sendable {
        case shortBucket, hostUnsafeBucket, emptyRegion, ftpEndpoint, endpointWithPath, emptySecret,
            dotDotPrefix, emptyPrefixSegment, relativePublicBase, bareMimePattern

        /// The setting's name as the error must mention it.
        var name: String {
            switch self {
            case .shortBucket, .hostUnsafeBucket: "bucket"
            case .emptyRegion: "region"
            case .ftpEndpoint, .endpointWithPath: "endpoint"
            case .emptySecret: "accessKeyId"
            case .dotDotPrefix, .emptyPrefixSegment: "prefix"
            case .relativePublicBase: "publicBaseUrl"
            case .bareMimePattern: "policy"
            }
        }

        func apply(to c: inout S3PresignerConfiguration) {
            switch self {
            case .shortBucket: c.bucket = "ab"
            case .hostUnsafeBucket: c.bucket = "Upper_Case"; c.pathStyle = false
            case .emptyRegion: c.region = ""
            case .ftpEndpoint: c.endpoint = "ftp://host"
            case .endpointWithPath: c.endpoint = "http://host/base"
            case .emptySecret: c.credentials.secretAccessKey = ""
            case .dotDotPrefix: c.keyPrefix = "a/../b"
            case .emptyPrefixSegment: c.keyPrefix = "a//b"
            case .relativePublicBase: c.publicBaseURL = "cdn.example.com"
            case .bareMimePattern: c.policy.allowedMimeTypes = ["image"]
            }
        }
    }

    @Test(arguments: BadSetting.allCases)
    func invalidSettingsAreNamedInTheError(_ setting: BadSetting) {
        var configuration = Self.configuration()
        setting.apply(to: &configuration)
        #expect {
            try S3Presigner(configuration: configuration)
        } throws: { error in
            (error as? S3Error)?.code == .invalidConfiguration && "\(error)".contains(setting.name)
        }
    }

    @Test func defaultPortsAreLeftOutOfTheSignedHost() throws {
        let presigner = try Self.presigner(Self.configuration(endpoint: "https://minio.example.com:443"))
        #expect(presigner.objectURL(key: "k") == "https://minio.example.com/attache-test/k")
        let custom = try Self.presigner(Self.configuration(endpoint: "https://minio.example.com:9443"))
        #expect(custom.objectURL(key: "a b") == "https://minio.example.com:9443/attache-test/a%20b")
        let ipv6 = try Self.presigner(Self.configuration(endpoint: "http://[::1]:9000"))
        #expect(ipv6.objectURL(key: "k") == "http://[::1]:9000/attache-test/k")
    }
}
