import Foundation
@testable import S3
import Testing
import HTTPTransport

@Suite struct S3XMLAnswerTests {
    @Test(arguments: [
        (500, "InternalError"), (501, "NotImplemented"), (503, "SlowDown"), (400, "RequestTimeout"),
        (400, "InvalidArgument"), (400, "ExpiredToken"), (403, "SignatureDoesNotMatch"), (404, "NoSuchUpload"),
        (409, "OperationAborted"), (409, "BucketNotEmpty"), (200, "InternalError"), (200, "InvalidPart"),
    ])
    func anS3ErrorIsRetryableAsTheStorageTableSays(status: Int, storeCode: String) throws {
        let body = Data("<?xml version=\"1.0\"?><Error><Code>\(storeCode)</Code><Message>m</Message></Error>".utf8)
        let answer = try #require(S3ErrorResponse(status: status, body: body))
        #expect(S3Error(answer).isRetryable == answer.uploadError.isRetryable)
    }

    static func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func createMultipartUploadAnswerGivesTheUploadId() throws {
        let body = Self.data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Bucket>example-bucket</Bucket><Key>example-object</Key>
              <UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId>
            </InitiateMultipartUploadResult>
            """)
        let result = try S3InitiateMultipartUploadResult(status: 200, body: body)
        #expect(result.uploadId == "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA")
        #expect(result.bucket == "example-bucket")
        #expect(result.key == "example-object")
    }

    @Test func createMultipartUploadAnswerWithoutUploadIdIsMalformed() {
        #expect {
            try S3InitiateMultipartUploadResult(
                status: 200, body: Self.data("<InitiateMultipartUploadResult><Bucket>b</Bucket></InitiateMultipartUploadResult>"))
        } throws: { ($0 as? S3Error)?.code == .malformedResponse }
    }

    /// Storage's upload id goes into the batch's snapshot: over its byte limit, or with a control character, it is
    /// refused for good rather than kept.
    @Test(arguments: [String(repeating: "u", count: 1025), "id\tx"])
    func anUploadIdAttacheCannotKeepIsRefused(uploadId: String) {
        let body = "<InitiateMultipartUploadResult><UploadId>\(uploadId)</UploadId></InitiateMultipartUploadResult>"
        #expect {
            try S3InitiateMultipartUploadResult(status: 200, body: Self.data(body))
        } throws: { ($0 as? S3Error).map { $0.code == .malformedResponse && !$0.isRetryable } == true }
        let longest = String(repeating: "u", count: 1024)
        #expect((try? S3InitiateMultipartUploadResult(
            status: 200, body: Self.data("<InitiateMultipartUploadResult><UploadId>\(longest)</UploadId></InitiateMultipartUploadResult>")))?
            .uploadId == longest)
    }

    @Test func completeMultipartUploadAnswerIsParsed() throws {
        let body = Self.data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Location>http://Example-Bucket.s3.amazonaws.com/Example-Object</Location>
              <Bucket>Example-Bucket</Bucket><Key>Example-Object</Key>
              <ETag>"3858f62230ac3c915f300c664312c11f-9"</ETag>
            </CompleteMultipartUploadResult>
            """)
        let result = try S3CompleteMultipartUploadResult(status: 200, body: body)
        #expect(result.etag == "\"3858f62230ac3c915f300c664312c11f-9\"")
        #expect(result.key == "Example-Object")
        #expect(result.location == "http://Example-Bucket.s3.amazonaws.com/Example-Object")
    }

    @Test func completeMultipartUploadErrorInsideA200IsAFailure() {
        // S3 answers 200 at once and writes the outcome later; leading whitespace is its keep-alive.
        let body = Self.data(
            """
                \n  <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><RequestId>656c76696e6727732072657175657374</RequestId><HostId>Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId></Error>
            """)
        #expect {
            try S3CompleteMultipartUploadResult(status: 200, body: body)
        } throws: { error in
            guard let error = error as? S3Error, let response = error.response else { return false }
            return error.code == .serviceError && response.code == "InternalError" && response.status == 200
                && error.isRetryable && response.requestId == "656c76696e6727732072657175657374"
        }
    }

    @Test func completeMultipartUploadWithABadPartIsNotRetryable() {
        let body = Self.data(
            "<Error><Code>InvalidPart</Code><Message>One or more of the specified parts could not be found.</Message></Error>")
        #expect {
            try S3CompleteMultipartUploadResult(status: 400, body: body)
        } throws: { error in
            let error = error as? S3Error
            return error?.response?.code == "InvalidPart" && error?.isRetryable == false
        }
    }

    @Test func anEmptyOrTruncatedAnswerIsMalformedAndRetryable() {
        for body in ["", "   \n", "<CompleteMultipartUploadResult><Bucket>b</Bu"] {
            #expect {
                try S3CompleteMultipartUploadResult(status: 200, body: Self.data(body))
            } throws: { ($0 as? S3Error)?.code == .malformedResponse && ($0 as? S3Error)?.isRetryable == true }
        }
    }

    @Test func anAnswerThatIsNotUTF8IsMalformedInsteadOfCrashing() {
        // An element name of bytes that are not UTF-8 (found by fuzzing): FoundationXML would trap on it.
        let body = Data([0x3C, 0xFF, 0xFF, 0x3E, 0xFF])
        #expect(throws: S3XMLElement.Malformed.self) { try S3XMLElement.parse(body) }
        #expect { try S3XMLElement.answer(status: 200, body: body, root: "Any") } throws: {
            ($0 as? S3Error)?.code == .malformedResponse
        }
        #expect(S3ErrorResponse(status: 403, body: body) == nil)
    }

    /// A processing instruction without data (found by fuzzing): FoundationXML reads its NULL data as a C string.
    @Test(arguments: ["<?xm?><Error/>", "<Error><?x?></Error>", "<?xml version=\"1.0\"?><?a?><Error/>",
                      "<?xml?><Error/>", "<?xml-stylesheet href=\"a\"?><Error/>",
                      "<?xml versi <Error><?xmlo.ad?></Error>", "<?xml version=\"1.0\""])
    func aProcessingInstructionIsMalformedInsteadOfCrashing(text: String) {
        #expect(throws: S3XMLElement.Malformed.self) { try S3XMLElement.parse(Self.data(text)) }
        #expect(S3ErrorResponse(status: 403, body: Self.data(text)) == nil)
    }

    /// Escaping goes by scalar (found by fuzzing): a `<` or `&` with a combining mark after it is one `Character`,
    /// which a character-wise escape let through raw.
    @Test(arguments: ["<\u{653}/>", "&\u{301}amp;", "a\"\u{20DD}'b", "plain", "<>&\"'"])
    func escapedTextParsesBackToItself(text: String) throws {
        let element = try S3XMLElement.parse(Self.data("<a>\(S3XMLElement.escape(text))</a>"))
        #expect(element.text == text)
    }

    /// The declaration S3 writes, and the text around it, still parse.
    @Test func theXMLDeclarationIsNoProcessingInstruction() throws {
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>a > b</Message></Error>"
        let root = try S3XMLElement.parse(Self.data(body))
        #expect(root.name == "Error")
        #expect(root.childText("Code") == "AccessDenied")
        #expect(root.childText("Message") == "a > b")
    }

    @Test func aNon2xxWithoutAnErrorDocumentKeepsItsStatus() {
        #expect {
            try S3InitiateMultipartUploadResult(status: 503, body: Data())
        } throws: { error in
            (error as? S3Error)?.code == .serviceError && (error as? S3Error)?.isRetryable == true
                && "\(error)".contains("503")
        }
    }

    @Test func expiredPresignedURLAnswerMapsToTheExpiredCode() throws {
        let body = Self.data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>AccessDenied</Code><Message>Request has expired</Message><X-Amz-Expires>1</X-Amz-Expires><Expires>2026-11-29T21:00:01Z</Expires><ServerTime>2026-11-29T21:00:03Z</ServerTime><RequestId>R1</RequestId><HostId>H1</HostId></Error>
            """)
        let response = try #require(S3ErrorResponse(status: 403, body: body))
        #expect(response.isExpiredRequest)
        #expect(response.uploadError.code == .presignedURLExpired)
        #expect(response.uploadError.isRetryable)
    }

    @Test func otherAccessDeniedAnswersAreUploadFailures() throws {
        let body = Self.data(
            "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>")
        let response = try #require(S3ErrorResponse(status: 403, body: body))
        #expect(!response.isExpiredRequest)
        #expect(response.uploadError.code == .s3UploadFailed)
        #expect(response.uploadError.message.contains("SignatureDoesNotMatch"))
    }

    @Test func nestedIAMStyleErrorDocumentsAreFound() throws {
        let body = Self.data(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <ErrorResponse><Errors><Error><Code>SignatureDoesNotMatch</Code><Message>mismatch</Message><Type>Sender</Type></Error></Errors><RequestId>abc</RequestId></ErrorResponse>
            """)
        let response = try #require(S3ErrorResponse(status: 403, body: body))
        #expect(response.code == "SignatureDoesNotMatch")
        #expect(response.message == "mismatch")
        #expect(response.requestId == "abc")
        #expect(S3ErrorResponse(status: 500, body: Self.data("<html>oops</html>")) == nil)
        #expect(S3ErrorResponse(status: 500, body: Data()) == nil)
    }

    @Test func completionBodyListsPartsInOrderWithEscapedETags() throws {
        let body = S3CompleteMultipartUpload(parts: [
            S3CompletedPart(partNumber: 2, etag: "\"bbb\""),
            S3CompletedPart(partNumber: 1, etag: "\"a&a\"", checksumSHA256: "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
        ]).xml
        let document = try S3XMLElement.parse(body)
        #expect(document.name == "CompleteMultipartUpload")
        let parts = document.children(named: "Part")
        #expect(parts.map { $0.childText("PartNumber") } == ["1", "2"])
        #expect(parts.map { $0.childText("ETag") } == ["\"a&a\"", "\"bbb\""])
        #expect(parts[0].childText("ChecksumSHA256") == "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=")
        #expect(parts[1].child("ChecksumSHA256") == nil)
        #expect(String(decoding: body, as: UTF8.self).contains("<ETag>&quot;a&amp;a&quot;</ETag>"))
    }
}
