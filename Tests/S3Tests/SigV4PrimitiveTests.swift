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

    @Test func hmacSHA256HashesAKeyLongerThanABlockFirst() {
        // RFC 4231 test case 6: a 131-byte key.
        let mac = SigV4Digest.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131),
                                         message: "Test Using Larger Than Block-Size Key - Hash Key First")
        #expect(SigV4Digest.hex(mac) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(SigV4Digest.hex(SigV4Digest.hmacSHA256(key: [UInt8](), message: ""))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// Keys one byte short of SHA-256's block, exactly one block and one byte over (Python's `hmac` made the values).
    @Test(arguments: [
        (63, "2e1021cc1e2e161bdafa601823a665d8f24f8e91902206f4219b39889bb31e41"),
        (64, "dd6e1799c6a4891e8b52830810ef7123650c6693d5c0385ffb00030df37ca9b2"),
        (65, "80da66004b5ea9d00621722b6d3e8635eb1800fc2992c0b3df9e7502f82962de"),
    ])
    func hmacSHA256AtTheBlockBoundary(keyLength: Int, expected: String) {
        let key = (0..<keyLength).map { UInt8($0) }
        #expect(SigV4Digest.hex(SigV4Digest.hmacSHA256(key: key, message: "attache")) == expected)
    }

    @Test func aKeptKeyGivesEachMessageItsOwnMACFromManyTasksAtOnce() async {
        let kept = HMACSHA256(key: Array("Jefe".utf8))
        let messages = (0..<200).map { "message \($0) " + String(repeating: "x", count: $0) }
        let macs = await withTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask { (index, kept.authenticate(message)) }
            }
            return await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        #expect(macs.count == messages.count)
        #expect(messages.indices.allSatisfy { macs[$0] == SigV4Digest.hmacSHA256(key: Array("Jefe".utf8), message: messages[$0]) })
        #expect(Set(macs.values).count == messages.count, "every message its own MAC: no state leaks between them")
        #expect(SigV4Digest.hex(kept.authenticate("what do ya want for nothing?"))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "RFC 4231 test case 2 after 200 uses")
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
