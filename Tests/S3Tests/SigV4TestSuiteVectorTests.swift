import Foundation
@testable import S3
import Testing
import WireFormat

/// Cases of AWS's published SigV4 test suite (`aws-sig-v4-test-suite`, 2015-08-30T12:36:00Z, `AKIDEXAMPLE`,
/// region `us-east-1`, service `service`); the expected values are AWS's.
@Suite struct SigV4TestSuiteVectorTests {
    static let signer = SigV4Signer(
        credentials: SigV4Credentials(
            accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let signingTime = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var request: SigV4Request
        var body: String = ""
        var signedHeaders: String
        var signature: String
        var testDescription: String { name }
    }

    static func request(
        _ method: String, path: String = "/", query: [SigV4QueryItem] = [], headers: [HTTPHeader] = [],
        body: String = ""
    ) -> SigV4Request {
        SigV4Request(
            method: method, authority: "example.amazonaws.com", path: path, query: query, headers: headers,
            payloadHash: SigV4Digest.hex(SigV4Digest.sha256(body)))
    }

    static let vectors: [Vector] = [
        Vector(
            name: "get-vanilla", request: request("GET"), signedHeaders: "host;x-amz-date",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "post-vanilla", request: request("POST"), signedHeaders: "host;x-amz-date",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(
            name: "get-vanilla-query-order-key-case",
            request: request("GET", query: [SigV4QueryItem("Param2", "value2"), SigV4QueryItem("Param1", "value1")]),
            signedHeaders: "host;x-amz-date",
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(
            name: "get-vanilla-query-unreserved",
            request: request(
                "GET",
                query: [
                    SigV4QueryItem(
                        "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                        "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
                ]),
            signedHeaders: "host;x-amz-date",
            signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(
            name: "get-vanilla-utf8-query", request: request("GET", query: [SigV4QueryItem("\u{1234}", "bar")]),
            signedHeaders: "host;x-amz-date",
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(
            name: "get-unreserved",
            request: request("GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            signedHeaders: "host;x-amz-date",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(
            name: "get-utf8", request: request("GET", path: "/\u{1234}"), signedHeaders: "host;x-amz-date",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(
            name: "get-header-value-trim",
            request: request(
                "GET", headers: [HTTPHeader("My-Header1", " value1"), HTTPHeader("My-Header2", "\"a   b   c\"")]),
            signedHeaders: "host;my-header1;my-header2;x-amz-date",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(
            name: "get-header-key-duplicate",
            request: request(
                "GET",
                headers: [
                    HTTPHeader("My-Header1", "value2"), HTTPHeader("My-Header1", "value2"),
                    HTTPHeader("My-Header1", "value1"),
                ]),
            signedHeaders: "host;my-header1;x-amz-date",
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Vector(
            name: "post-header-value-case", request: request("POST", headers: [HTTPHeader("My-Header1", "VALUE1")]),
            signedHeaders: "host;my-header1;x-amz-date",
            signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        Vector(
            name: "post-x-www-form-urlencoded",
            request: request(
                "POST", headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                body: "Param1=value1"),
            body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
            signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        Vector(
            name: "post-x-www-form-urlencoded-parameters",
            request: request(
                "POST", headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf8")],
                body: "Param1=value1"),
            body: "Param1=value1", signedHeaders: "content-type;host;x-amz-date",
            signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
    ]

    @Test(arguments: vectors)
    func authorizationHeaderMatchesThePublishedVector(_ vector: Vector) throws {
        let signed = Self.signer.authorize(vector.request, body: Data(vector.body.utf8), at: Self.signingTime)
        #expect(
            signed.header("Authorization")
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
        #expect(signed.header("x-amz-date") == "20150830T123600Z")
        #expect(signed.header("host") == nil)
    }

    @Test func getVanillaCanonicalRequestAndStringToSignMatchThePublishedOnes() {
        let request = Self.request("GET")
        let time = SigV4Timestamp(Self.signingTime)
        let headers = [HTTPHeader("host", "example.amazonaws.com"), HTTPHeader("x-amz-date", time.amzDate)]
        let canonical = Self.signer.canonicalRequest(request, query: [], headers: headers)
        #expect(
            canonical
                == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
                + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.signer.stringToSign(canonicalRequest: canonical, at: time)
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
                + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
    }

    @Test func temporaryCredentialsSignTheSessionTokenHeader() throws {
        var signer = Self.signer
        signer.credentials.sessionToken = "session-token"
        let signed = signer.authorize(Self.request("GET"), at: Self.signingTime)
        #expect(signed.header("x-amz-security-token") == "session-token")
        let authorization = try #require(signed.header("Authorization"))
        #expect(authorization.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"))
        #expect(!authorization.hasSuffix("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"))
    }
}
