import Foundation
@testable import S3
import Testing
import WireFormat

@Suite struct SigV4PrimitiveTests {
    @Test func sha256OfAbcIsTheFIPSVector() {
        #expect(
            SigV4Digest.hex(SigV4Digest.sha256("abc"))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SigV4Digest.hex(SigV4Digest.sha256(Data())) == SigV4Request.emptyPayloadHash)
    }

    @Test func hmacSHA256MatchesRFC4231TestCase2() {
        let mac = SigV4Digest.hmacSHA256(key: Array("Jefe".utf8), message: "what do ya want for nothing?")
        #expect(SigV4Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func theRememberedSigningKeyIsUsedOnlyForTheInputsItWasDerivedFrom() {
        var signer = SigV4Signer(credentials: SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "secret-1"), region: "us-east-1")
        let day = SigV4Timestamp(Date(timeIntervalSince1970: 1_369_353_600))
        let nextDay = SigV4Timestamp(Date(timeIntervalSince1970: 1_369_353_600 + 86_400))
        func derived(_ signer: SigV4Signer, _ time: SigV4Timestamp) -> [UInt8] {
            let date = SigV4Digest.hmacSHA256(key: Array("AWS4\(signer.credentials.secretAccessKey)".utf8), message: time.dateStamp)
            let region = SigV4Digest.hmacSHA256(key: date, message: signer.region)
            return SigV4Digest.hmacSHA256(key: SigV4Digest.hmacSHA256(key: region, message: signer.service), message: "aws4_request")
        }
        #expect(signer.signingKey(at: day) == derived(signer, day))
        #expect(signer.signingKey(at: day) == derived(signer, day), "from the memo")
        #expect(signer.signingKey(at: nextDay) == derived(signer, nextDay), "a new day derives a new key")
        signer.region = "eu-west-1"
        #expect(signer.signingKey(at: nextDay) == derived(signer, nextDay), "a copy with another region")
        signer.credentials = SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "secret-2")
        #expect(signer.signingKey(at: nextDay) == derived(signer, nextDay), "and another secret")
        #expect(signer == SigV4Signer(credentials: signer.credentials, region: "eu-west-1"), "equal by its inputs")
    }

    @Test func hexRoundTripsAndRejectsNonHex() {
        #expect(SigV4Digest.bytes(fromHex: "00ff10Ab") == [0x00, 0xff, 0x10, 0xab])
        #expect(SigV4Digest.bytes(fromHex: "abc") == nil)
        #expect(SigV4Digest.bytes(fromHex: "zz") == nil)
        #expect(SigV4Digest.hex([0x00, 0xff, 0x10, 0xab]) == "00ff10ab")
    }

    @Test(arguments: [
        (1_369_353_600, "20130524T000000Z"),
        (1_795_986_000, "20261129T210000Z"),
        (951_868_799, "20000229T235959Z"),
        (-1, "19691231T235959Z"),
        (0, "19700101T000000Z"),
        (253_402_300_799, "99991231T235959Z"),
        (253_402_300_800, "100000101T000000Z"),
    ])
    func timestampFormatsUTCInstants(seconds: Int, expected: String) {
        let time = SigV4Timestamp(Date(timeIntervalSince1970: TimeInterval(seconds)))
        #expect(time.amzDate == expected)
        #expect(time.dateStamp == String(expected.prefix { $0 != "T" }))
    }

    @Test func timestampDropsFractionsOfASecond() {
        let time = SigV4Timestamp(Date(timeIntervalSince1970: 1_369_353_600.999))
        #expect(time.amzDate == "20130524T000000Z")
        #expect(time.date == Date(timeIntervalSince1970: 1_369_353_600))
    }

    @Test func canonicalHeaderValuesAreTrimmedAndCollapsedWhateverTheirShape() {
        let headers = [
            HTTPHeader("X-Plain", "a b"), HTTPHeader("x-trailing", "a "), HTTPHeader("X-TAB", "a\tb"),
            HTTPHeader("x-empty", ""), HTTPHeader("x-spaces", "  a   b  "), HTTPHeader("x-only-spaces", "   "),
            HTTPHeader("x-repeated", "2"), HTTPHeader("X-Repeated", " 1"),
        ]

        let canonical = SigV4Signer.canonicalHeaders(headers)

        #expect(canonical.block == "x-empty:\nx-only-spaces:\nx-plain:a b\nx-repeated:2,1\nx-spaces:a b\nx-tab:a b\nx-trailing:a\n")
        #expect(canonical.signedHeaders == "x-empty;x-only-spaces;x-plain;x-repeated;x-spaces;x-tab;x-trailing")
    }

    @Test func uriEncodingKeepsOnlyUnreservedCharacters() {
        #expect(SigV4Encoding.uriEncode("a b+c/d~e_f.g-h") == "a%20b%2Bc%2Fd~e_f.g-h")
        #expect(SigV4Encoding.uriEncode("/a b/c$d", encodeSlash: false) == "/a%20b/c%24d")
        #expect(SigV4Encoding.uriEncode("naïve") == "na%C3%AFve")
        #expect(SigV4Encoding.uriEncode("%2F") == "%252F")
        #expect(SigV4Encoding.uriEncode("=&?#*'()!") == "%3D%26%3F%23%2A%27%28%29%21")
        #expect(SigV4Encoding.uriEncode("X-Amz-Algorithm") == "X-Amz-Algorithm")
        #expect(SigV4Encoding.uriEncode("") == "")
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let credentials = SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "s3cr3t", sessionToken: "t0k3n")
        #expect(!"\(credentials)".contains("s3cr3t"))
        #expect(!"\(credentials)".contains("t0k3n"))
        #expect("\(credentials)".contains("AKID"))
    }

    @Test func credentialsComeFromTheStandardAWSVariables() throws {
        let credentials = try #require(
            SigV4Credentials(environment: [
                "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
            ]))
        #expect(credentials == SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "secret"))
        #expect(SigV4Credentials(environment: ["AWS_ACCESS_KEY_ID": "AKID"]) == nil)
    }
}
