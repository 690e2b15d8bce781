import Testing

@testable import HTTPTransport

@Suite struct RedactedURLTests {
    @Test(arguments: [
        ("https://b.s3.invalid/k/x.jpg?X-Amz-Signature=abc", "https://b.s3.invalid/k/x.jpg?X-Amz-Signature=***"),
        ("https://user:pass@host.invalid/p?q=1#f", "https://***@host.invalid/p?q=***#***"),
        ("https://user:pass@h/p?token=x&a=1", "https://***@h/p?token=***&a=***"),
        ("http://host.invalid/plain", "http://host.invalid/plain"),
        ("http://host.invalid/p#frag", "http://host.invalid/p#***"),
        ("http://host.invalid/p?AKIASECRET&x=&&y=1", "http://host.invalid/p?***&x=***&&y=***"),
        ("http://host.invalid/p?a=1;b=2", "http://host.invalid/p?a=***"),
        ("http://host.invalid?next=a@b", "http://host.invalid?next=***"),
        ("https://alice@host.invalid:8443/", "https://***@host.invalid:8443/"),
        ("broker-1:9092", "broker-1:9092"),
    ])
    func userInfoQueryValuesAndFragmentAreHidden(url: String, redacted: String) {
        #expect(RedactedURL.redact(url) == redacted)
    }

    @Test(arguments: [
        ("sasl://alice:pw1@b1:9092,sasl://alice:pw2@b2:9092", "sasl://***@b1:9092,sasl://***@b2:9092"),
        ("b1:9092,https://u:p@b2:9092", "b1:9092,https://***@b2:9092"),
        ("https://h/p?ids=1,2,3", "https://h/p?ids=***"),
        ("https://h/a?t=1, https://h/b?t=2", "https://h/a?t=***, https://h/b?t=***"),
        ("principal=x tokenurl=https://u:p@idp/token?secret=s scope=y", "principal=x tokenurl=https://***@idp/token?secret=*** scope=y"),
        ("no urls here: host:9092, a=b", "no urls here: host:9092, a=b"),
        ("://nothing", "://nothing"),
    ])
    func everyURLInsideATextIsRedactedOnItsOwn(text: String, redacted: String) {
        #expect(RedactedURL.redactingURLs(in: text) == redacted)
    }

    @Test func scrubHidesWhatTheURLHidesWhereverAMessageQuotesIt() {
        let url = "https://h.invalid/k?X-Amz-Signature=abc"
        #expect(RedactedURL.scrub("failed for https://h.invalid/k?X-Amz-Signature=abc now", of: url)
            == "failed for https://h.invalid/k?X-Amz-Signature=*** now")
        #expect(RedactedURL.scrub("query ?X-Amz-Signature=abc was refused", of: url) == "query ?X-Amz-Signature=*** was refused")
        let credentials = "https://alice:pw@h.invalid/k"
        #expect(RedactedURL.scrub("login alice:pw@h.invalid failed", of: credentials) == "login ***@h.invalid failed")
    }
}
