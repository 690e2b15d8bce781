import Foundation
@testable import S3
import Testing
import TestSupport
import WireFormat

/// A presigned URL put together from a kept shape is, byte for byte, the one the signer writes from the request's
/// parts; requests whose URLs cannot share a shape are signed from their parts.
@Suite struct SigV4PresignShapeTests {
    static let day = Date(timeIntervalSince1970: 1_795_986_000)  // 2026-11-29T21:00:00Z

    /// A fresh signer each time, so that no shape is kept from another request.
    static func signer(token: String? = nil) -> SigV4Signer {
        SigV4Signer(
            credentials: SigV4Credentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                sessionToken: token),
            region: "eu-central-1")
    }

    static func upload(path: String, headers: [HTTPHeader], authority: String = "bucket.s3.example:9000") -> SigV4Request {
        SigV4Request(method: "put", scheme: "http", authority: authority, path: path, headers: headers,
                     payloadHash: SigV4Request.unsignedPayload)
    }

    static func expectSame(_ signer: SigV4Signer, _ request: SigV4Request, lifetime: Int, at date: Date,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shaped = try signer.presign(request, lifetime: lifetime, at: date)
        let piecewise = signer.presignPiecewise(request, lifetime: lifetime, at: SigV4Timestamp(date))
        #expect(shaped == piecewise, sourceLocation: sourceLocation)
    }

    @Test func theFirstURLOfAShapeAndTheNextOnesAreTheOnesWrittenPieceByPiece() throws {
        let signer = Self.signer()
        let headers = [HTTPHeader("content-type", "image/jpeg"),
                       HTTPHeader("x-amz-checksum-sha256", "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
                       HTTPHeader("x-amz-sdk-checksum-algorithm", "SHA256")]
        for (second, key) in ["a/b/photo 1.jpg", "c/d/ünï cödé.png", "e/f/plain.bin"].enumerated() {
            try Self.expectSame(signer, Self.upload(path: "/bucket/" + key, headers: headers), lifetime: 900,
                                at: Self.day.addingTimeInterval(TimeInterval(second)))
        }
        #expect(signer.presignShapes.count == 1)
        // The botocore vector of SigV4PresignTests, through a kept shape this time.
        let vector = SigV4Request(
            method: "PUT", scheme: "http", authority: "127.0.0.1:9000", path: "/attache-test/uploads/trip-42/f1/photo-1.jpg",
            headers: headers, payloadHash: SigV4Request.unsignedPayload)
        let signed = try signer.presign(vector, lifetime: 900, at: Self.day)
        #expect(signed.signature == "e17446e9fb4a6f62c269ca1517239dee8509bfd0a9fe514a5ccaa5117a616f5b")
    }

    @Test func randomRequestsAreSignedAsFromTheirParts() throws {
        var random = SplitMix64(seed: 0x5169_7465)
        let names = ["content-type", "Content-Type", "x-amz-checksum-sha256", "X-Amz-Meta-Trip", "x-amz-acl",
                     "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id", "cache-control"]
        let values = ["image/jpeg", "  padded  ", "two  spaces", "tab\there", "", "ünïcödé", "a,b;c=d"]
        let keys = ["k", "dir/sub/file.txt", "space d/ñame (1).jpg", "~tilde-_.ok", "100%/#?&="]
        var shapedRounds = 0
        for round in 0..<400 {
            let signer = Self.signer(token: round % 3 == 0 ? "FQoGZXIvYXdzE/token+value==" : nil)
            var headers: [HTTPHeader] = []
            for name in names.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random)) {
                headers.append(HTTPHeader(name, values.randomElement(using: &random)!))
            }
            let lifetime = [1, 900, 604_800].randomElement(using: &random)!
            let request = Self.upload(path: "/" + keys.randomElement(using: &random)!, headers: headers,
                                      authority: ["h.example", "bucket.s3.example:9000", "[::1]:9000"].randomElement(using: &random)!)
            // Twice: the first URL makes the shape, the second is put together from it.
            for later in [0.0, Double.random(in: 0...86_400 * 3, using: &random)] {
                try Self.expectSame(signer, request, lifetime: lifetime, at: Self.day.addingTimeInterval(later))
            }
            shapedRounds += signer.presignShapes.count > 0 ? 1 : 0
        }
        // Most draws have no name twice: the comparison is of the shaped path, not of the general one with itself.
        #expect(shapedRounds > 200)
    }

    @Test func aNewDayOrLifetimeMakesAShapeOfItsOwn() throws {
        let signer = Self.signer()
        let request = Self.upload(path: "/bucket/k", headers: [HTTPHeader("content-type", "text/plain")])
        try Self.expectSame(signer, request, lifetime: 900, at: Self.day)
        try Self.expectSame(signer, request, lifetime: 60, at: Self.day)
        #expect(signer.presignShapes.count == 2)
        // The next day's replaces both: they can never fit again.
        try Self.expectSame(signer, request, lifetime: 900, at: Self.day.addingTimeInterval(86_400))
        #expect(signer.presignShapes.count == 1)
    }

    @Test func requestsWhoseURLsShareNoShapeAreSignedFromTheirParts() throws {
        let signer = Self.signer()
        let withQuery = SigV4Request(method: "PUT", authority: "h.example", path: "/k",
                                     query: [SigV4QueryItem("partNumber", "3"), SigV4QueryItem("uploadId", "a/b")],
                                     payloadHash: SigV4Request.unsignedPayload)
        let withHost = Self.upload(path: "/k", headers: [HTTPHeader("Host", "other.example")])
        let repeated = Self.upload(path: "/k", headers: [HTTPHeader("x-amz-meta-a", "1"), HTTPHeader("X-Amz-Meta-A", "2")])
        for request in [withQuery, withHost, repeated] {
            try Self.expectSame(signer, request, lifetime: 900, at: Self.day)
        }
        #expect(signer.presignShapes.count == 0)
        // What those URLs sign: the part's query, the given host and both values, joined in order.
        let part = try signer.presign(withQuery, lifetime: 900, at: Self.day)
        #expect(part.url.contains("partNumber=3") && part.url.contains("uploadId=a%2Fb"))
        let joined = try signer.presign(repeated, lifetime: 900, at: Self.day)
        #expect(joined.url.contains("X-Amz-SignedHeaders=host%3Bx-amz-meta-a&"))
    }
}
