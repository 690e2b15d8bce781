import Testing

@testable import HTTPTransport

/// A URL's query goes to libcurl as the request line's target, so that libcurl does not write it out a character at
/// a time; every URL whose request line that could change goes whole.
@Suite struct RequestTargetTests {
    private static let presigned = "https://bucket.s3.amazonaws.com/b-1/f1/photo%20one.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKID%2F20261206%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=" + String(repeating: "ab", count: 32)

    @Test func aPresignedURLIsSplitAtItsQueryWithThePathAndQueryAsTheyAre() throws {
        let split = try #require(RequestTarget.split(Self.presigned, followsRedirects: false, proxiedHTTP: false))
        #expect(split.url == "https://bucket.s3.amazonaws.com/b-1/f1/photo%20one.jpg")
        #expect(split.target == "/b-1/f1/photo%20one.jpg?" + Self.presigned.split(separator: "?", maxSplits: 1)[1])
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/a/b?x=1", "http://127.0.0.1:8080/a/b", "/a/b?x=1"),
        ("HTTP://Host/a?", "HTTP://Host/a", "/a?"),
        ("https://user@host:443/p?q=/a/../b", "https://user@host:443/p", "/p?q=/a/../b"),
    ])
    func urlsWithAQueryAreSplit(url: String, base: String, target: String) {
        #expect(RequestTarget.split(url, followsRedirects: false, proxiedHTTP: false) == RequestTarget(url: base, target: target))
    }

    @Test(arguments: [
        "http://host/a/b",                 // no query
        "http://host/a?x=1#part",          // a fragment, which libcurl leaves out
        "http://host?x=1",                 // no path before the query
        "http://host/a/../b?x=1",          // dot segments, which libcurl resolves
        "http://host/./b?x=1",
        "http://host/a/%2E%2e/b?x=1",
        "http://host/a/%2e?x=1",
        "ftp://host/a?x=1",                // not HTTP
        "host/a?x=1",                      // no scheme
        "http:/host/a?x=1",
    ])
    func urlsWhoseRequestLineCouldChangeGoWhole(url: String) {
        #expect(RequestTarget.split(url, followsRedirects: false, proxiedHTTP: false) == nil)
    }

    @Test func redirectsAndPlainHTTPThroughAProxyGoWhole() {
        #expect(RequestTarget.split("http://host/a?x=1", followsRedirects: true, proxiedHTTP: false) == nil)
        #expect(RequestTarget.split("http://host/a?x=1", followsRedirects: false, proxiedHTTP: true) == nil)
        // An https URL goes through a proxy's tunnel, where the request line is the same as without one.
        #expect(RequestTarget.split("https://host/a?x=1", followsRedirects: false, proxiedHTTP: true) != nil)
    }
}
