import Foundation
@testable import S3
import Testing
import WireFormat

@Suite struct SigV4PresignTests {
    static let signer = SigV4Signer(
        credentials: SigV4Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "eu-central-1")
    static let time = Date(timeIntervalSince1970: 1_795_986_000)  // 2026-11-29T21:00:00Z

    static func queryValue(_ url: String, _ name: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    @Test(arguments: [0, -5, 604_801])
    func lifetimesOutsideOneSecondToSevenDaysAreRefused(lifetime: Int) {
        let request = SigV4Request(method: "GET", authority: "h.example", path: "/k")
        #expect {
            try Self.signer.presign(request, lifetime: lifetime, at: Self.time)
        } throws: { error in
            (error as? S3Error)?.code == .urlLifetimeOutOfRange && "\(error)".contains("604800")
        }
    }

    @Test func sevenDaysExactlyIsAccepted() throws {
        let request = SigV4Request(method: "GET", authority: "h.example", path: "/k")
        let signed = try Self.signer.presign(request, lifetime: 604_800, at: Self.time)
        #expect(Self.queryValue(signed.url, "X-Amz-Expires") == "604800")
        #expect(signed.expiresAt == Self.time.addingTimeInterval(604_800))
    }

    /// Reference signature computed with botocore 1.44.8's `S3SigV4QueryAuth` for the same request and instant.
    @Test func presignedPutSigningChecksumHeadersMatchesBotocore() throws {
        let request = SigV4Request(
            method: "PUT", scheme: "http", authority: "127.0.0.1:9000",
            path: "/attache-test/uploads/trip-42/f1/photo-1.jpg",
            headers: [
                HTTPHeader("content-type", "image/jpeg"),
                HTTPHeader("x-amz-checksum-sha256", "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
                HTTPHeader("x-amz-sdk-checksum-algorithm", "SHA256"),
            ], payloadHash: SigV4Request.unsignedPayload)
        let signed = try Self.signer.presign(request, lifetime: 900, at: Self.time)
        #expect(
            signed.url
                == "http://127.0.0.1:9000/attache-test/uploads/trip-42/f1/photo-1.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261129%2Feu-central-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20261129T210000Z&X-Amz-Expires=900"
                + "&X-Amz-SignedHeaders=content-type%3Bhost%3Bx-amz-checksum-sha256%3Bx-amz-sdk-checksum-algorithm"
                + "&X-Amz-Signature=e17446e9fb4a6f62c269ca1517239dee8509bfd0a9fe514a5ccaa5117a616f5b")
        #expect(signed.headers == request.headers)
    }

    /// Reference signature computed with botocore 1.44.8 for a key needing encoding and temporary credentials.
    @Test func presignedPutWithSessionTokenAndEncodedKeyMatchesBotocore() throws {
        var signer = Self.signer
        signer.credentials.sessionToken = "FQoGZXIvYXdzE/token+value=="
        let request = SigV4Request(
            method: "PUT", authority: "attache-test.s3.eu-central-1.amazonaws.com",
            path: "/uploads/trip 42/f%/naïve + file.txt", headers: [HTTPHeader("content-type", "text/plain")],
            payloadHash: SigV4Request.unsignedPayload)
        let signed = try signer.presign(request, lifetime: 604_800, at: Self.time)
        #expect(signed.signature == "7e9eb224f315f024df49fbee44312567a4eb1f12a953b741eff570800252e6e2")
        #expect(
            signed.url.hasPrefix(
                "https://attache-test.s3.eu-central-1.amazonaws.com/uploads/trip%2042/f%25/na%C3%AFve%20%2B%20file.txt?"))
        #expect(Self.queryValue(signed.url, "X-Amz-Security-Token") == "FQoGZXIvYXdzE/token+value==")
        #expect(signed.url.contains("X-Amz-Security-Token=FQoGZXIvYXdzE%2Ftoken%2Bvalue%3D%3D"))
    }

    @Test func everySignedPartChangesTheSignature() throws {
        let base = SigV4Request(
            method: "PUT", authority: "h.example", path: "/k", headers: [HTTPHeader("content-type", "image/png")],
            payloadHash: SigV4Request.unsignedPayload)
        let reference = try Self.signer.presign(base, lifetime: 900, at: Self.time).signature
        var otherType = base
        otherType.headers = [HTTPHeader("content-type", "image/gif")]
        var otherKey = base
        otherKey.path = "/k2"
        var otherMethod = base
        otherMethod.method = "GET"
        let variants = [
            try Self.signer.presign(otherType, lifetime: 900, at: Self.time).signature,
            try Self.signer.presign(otherKey, lifetime: 900, at: Self.time).signature,
            try Self.signer.presign(otherMethod, lifetime: 900, at: Self.time).signature,
            try Self.signer.presign(base, lifetime: 901, at: Self.time).signature,
            try Self.signer.presign(base, lifetime: 900, at: Self.time.addingTimeInterval(1)).signature,
        ]
        #expect(!variants.contains(reference))
        #expect(Set(variants).count == variants.count)
    }

    @Test func existingQueryItemsAreSignedAndKeptInCanonicalOrder() throws {
        let request = SigV4Request(
            method: "PUT", authority: "h.example", path: "/k",
            query: [SigV4QueryItem("uploadId", "a/b+c"), SigV4QueryItem("partNumber", "2")],
            payloadHash: SigV4Request.unsignedPayload)
        let signed = try Self.signer.presign(request, lifetime: 60, at: Self.time)
        let query = try #require(signed.url.split(separator: "?", maxSplits: 1).last)
        let names = query.split(separator: "&").map { $0.split(separator: "=").first.map(String.init) ?? "" }
        #expect(
            names == [
                "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders",
                "partNumber", "uploadId", "X-Amz-Signature",
            ])
        #expect(query.contains("uploadId=a%2Fb%2Bc"))
    }
}
