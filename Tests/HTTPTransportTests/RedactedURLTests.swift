import Testing

@testable import HTTPTransport

@Suite struct RedactedURLTests {
    @Test(arguments: [
        ("https://b.s3.invalid/k/x.jpg?X-Amz-Signature=abc", "https://b.s3.invalid/k/x.jpg?<redacted>"),
        ("https://user:pass@host.invalid/p?q=1#f", "https://***@host.invalid/p?<redacted>"),
        ("http://host.invalid/plain", "http://host.invalid/plain"),
        ("http://host.invalid/p#frag", "http://host.invalid/p?<redacted>"),
    ])
    func queryFragmentAndCredentialsAreHidden(url: String, redacted: String) {
        #expect(RedactedURL.redact(url) == redacted)
    }

    @Test func scrubRemovesTheQueryWhereverAMessageQuotesIt() {
        let url = "https://h.invalid/k?X-Amz-Signature=abc"
        #expect(RedactedURL.scrub("failed for https://h.invalid/k?X-Amz-Signature=abc now", of: url)
            == "failed for https://h.invalid/k?<redacted> now")
    }
}
