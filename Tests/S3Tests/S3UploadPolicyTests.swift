@testable import S3
import Testing
import UploadEngine

@Suite struct S3UploadPolicyTests {
    static func file(_ mimeType: String, size: Int64 = 10) -> PresignFile {
        PresignFile(fileId: "f", name: "n", mimeType: mimeType, size: size, sha256: "")
    }

    @Test func anEmptyTypeListAllowsEveryType() {
        #expect(S3UploadPolicy().refusal(for: Self.file("application/x-anything")) == nil)
    }

    @Test(arguments: [
        ("image/png", true), ("IMAGE/JPEG", true), ("image/svg+xml; charset=utf-8", true),
        ("application/pdf", true), ("application/pdfx", false), ("video/mp4", false), ("", false),
        ("image", false), ("imagex/png", false),
    ])
    func typePatternsMatchByTopLevelOrExactly(mimeType: String, allowed: Bool) {
        let policy = S3UploadPolicy(allowedMimeTypes: ["image/*", "application/pdf"])
        #expect(policy.allows(mimeType: mimeType) == allowed)
    }

    @Test func aDisallowedTypeIsRefusedAsAPolicyDenial() throws {
        let policy = S3UploadPolicy(allowedMimeTypes: ["image/*"])
        let refusal = try #require(policy.refusal(for: Self.file("video/mp4")))
        #expect(refusal.code == .presignedURLFailed)
        #expect(!refusal.isRetryable)
        #expect(refusal.message.contains("video/mp4"))
        #expect(refusal.message.contains("image/*"))
    }

    @Test func aFileOverTheSizeLimitIsRefusedAsTooLarge() throws {
        let policy = S3UploadPolicy(maximumSize: 100)
        #expect(policy.refusal(for: Self.file("image/png", size: 100)) == nil)
        let refusal = try #require(policy.refusal(for: Self.file("image/png", size: 101)))
        #expect(refusal.code == .fileSizeExceeded)
        #expect(!refusal.isRetryable)
    }

    @Test(arguments: [("*", true), ("*/*", true), ("image/*", true), ("a/b", true), ("*/png", false),
        ("image", false), ("image/", false), ("im*ge/png", false), ("a/b/c", false)])
    func patternsAreValidated(pattern: String, valid: Bool) {
        #expect(S3UploadPolicy.isValidPattern(pattern) == valid)
    }
}
