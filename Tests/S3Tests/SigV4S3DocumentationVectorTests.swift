import Foundation
@testable import S3
import Testing
import WireFormat

/// The worked examples of the Amazon S3 API Reference ("Authenticating Requests: Using Query Parameters" and
/// "Signature Calculations for the Authorization Header"): `AKIAIOSFODNN7EXAMPLE`, `examplebucket`,
/// 2013-05-24T00:00:00Z, us-east-1. Expected values are the documentation's.
@Suite struct SigV4S3DocumentationVectorTests {
    static let signer = SigV4Signer(
        credentials: SigV4Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")
    static let time = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = "examplebucket.s3.amazonaws.com"

    @Test func presignedGetMatchesTheDocumentedURL() throws {
        let request = SigV4Request(
            method: "GET", authority: Self.host, path: "/test.txt", payloadHash: SigV4Request.unsignedPayload)
        let signed = try Self.signer.presign(request, lifetime: 86_400, at: Self.time)
        #expect(
            signed.url
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(signed.signature == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(signed.expiresAt == Self.time.addingTimeInterval(86_400))
        #expect(signed.headers.isEmpty)
        #expect(signed.redactedURL == "https://examplebucket.s3.amazonaws.com/test.txt")
    }

    @Test func presignedGetCanonicalRequestHashesToTheDocumentedValue() {
        let request = SigV4Request(
            method: "GET", authority: Self.host, path: "/test.txt", payloadHash: SigV4Request.unsignedPayload)
        let query = [
            SigV4QueryItem("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            SigV4QueryItem("X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"),
            SigV4QueryItem("X-Amz-Date", "20130524T000000Z"),
            SigV4QueryItem("X-Amz-Expires", "86400"),
            SigV4QueryItem("X-Amz-SignedHeaders", "host"),
        ]
        let canonical = Self.signer.canonicalRequest(request, query: query, headers: [HTTPHeader("host", Self.host)])
        #expect(
            Self.signer.stringToSign(canonicalRequest: canonical, at: SigV4Timestamp(Self.time))
                == "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                + "3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04")
    }

    struct HeaderVector: Sendable, CustomTestStringConvertible {
        var name: String
        var request: SigV4Request
        var signedHeaders: String
        var signature: String
        var testDescription: String { name }
    }

    static func s3Request(
        _ method: String, path: String, query: [SigV4QueryItem] = [], headers: [HTTPHeader] = [],
        payloadHash: String = SigV4Request.emptyPayloadHash
    ) -> SigV4Request {
        SigV4Request(
            method: method, authority: host, path: path, query: query,
            headers: headers + [HTTPHeader("x-amz-content-sha256", payloadHash)], payloadHash: payloadHash)
    }

    static let headerVectors: [HeaderVector] = [
        HeaderVector(
            name: "GET Object with Range",
            request: s3Request("GET", path: "/test.txt", headers: [HTTPHeader("Range", "bytes=0-9")]),
            signedHeaders: "host;range;x-amz-content-sha256;x-amz-date",
            signature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
        HeaderVector(
            name: "PUT Object to a key with $",
            request: s3Request(
                "PUT", path: "/test$file.text",
                headers: [
                    HTTPHeader("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                    HTTPHeader("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                ],
                payloadHash: SigV4Digest.hex(SigV4Digest.sha256("Welcome to Amazon S3."))),
            signedHeaders: "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
            signature: "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"),
        HeaderVector(
            name: "GET Bucket lifecycle", request: s3Request("GET", path: "/", query: [SigV4QueryItem("lifecycle")]),
            signedHeaders: "host;x-amz-content-sha256;x-amz-date",
            signature: "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        HeaderVector(
            name: "GET Bucket (list objects)",
            request: s3Request(
                "GET", path: "/", query: [SigV4QueryItem("prefix", "J"), SigV4QueryItem("max-keys", "2")]),
            signedHeaders: "host;x-amz-content-sha256;x-amz-date",
            signature: "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ]

    @Test(arguments: headerVectors)
    func authorizationHeaderMatchesTheDocumentedSignature(_ vector: HeaderVector) {
        let signed = Self.signer.authorize(vector.request, at: Self.time)
        #expect(
            signed.header("Authorization")
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
    }

    @Test func putObjectURLEncodesTheDollarInTheKeyOnce() {
        let signed = Self.signer.authorize(Self.headerVectors[1].request, at: Self.time)
        #expect(signed.url == "https://examplebucket.s3.amazonaws.com/test%24file.text")
    }
}
