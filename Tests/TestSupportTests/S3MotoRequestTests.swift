import TestSupport
import Testing

/// moto's request log read back as requests: what the end-to-end tests count parts and aborts with.
@Suite struct S3MotoRequestTests {
    @Test func anUploadPartLineGivesItsMethodPathQueryAndStatus() throws {
        let line: Substring = #"127.0.0.1 - - [05/Dec/2026 21:46:35] "PUT /probe/uploads/b%201/k?partNumber=3&uploadId=Ep-Sv HTTP/1.1" 200 -"#
        let request = try #require(S3MotoRequest(logLine: line))
        #expect(request.method == "PUT" && request.path == "/probe/uploads/b%201/k" && request.status == 200)
        #expect(request.query == ["partNumber": "3", "uploadId": "Ep-Sv"])
        #expect(request.isUploadPart)
    }

    @Test func aCutOffPartLoggedInColourIsReadAsItsAnswer() throws {
        let line: Substring = "127.0.0.1 - - [05/Dec/2026 21:46:35] \"\u{1B}[31m\u{1B}[1mPUT /probe/k?partNumber=2&uploadId=Ep HTTP/1.1\u{1B}[0m\" 400 -"
        let request = try #require(S3MotoRequest(logLine: line))
        #expect(request.status == 400 && request.isUploadPart && request.path == "/probe/k")
    }

    @Test func otherRequestsAndOtherLinesAreToldApart() throws {
        let create = try #require(S3MotoRequest(logLine: #"127.0.0.1 - - [05/Dec/2026 21:46:34] "POST /probe/k?uploads HTTP/1.1" 200 -"#))
        #expect(create.query == ["uploads": ""] && !create.isUploadPart)
        #expect(S3MotoRequest(logLine: " * Running on http://127.0.0.1:45999") == nil)
        #expect(S3MotoRequest(logLine: "Traceback (most recent call last):") == nil)
    }
}
