import Testing
import WireFormat

/// The scheme and authority at a URL's front, as the per-request checks find them.
@Suite struct URLPrefixTests {
    private static func parts(_ url: String) -> (scheme: String, authority: String)? {
        var url = url
        return url.withUTF8 { bytes in
            URLPrefix.parts(of: bytes).map { parts in
                (String(decoding: bytes[parts.scheme], as: UTF8.self), String(decoding: bytes[parts.authority], as: UTF8.self))
            }
        }
    }

    @Test(arguments: [
        ("http://host/a?b", "http", "host"), ("HTTPS://u:p@h:1?q", "HTTPS", "u:p@h:1"), ("x://#f", "x", ""),
        ("http://[::1]:8080", "http", "[::1]:8080"), ("h ttp://host", "h ttp", "host"),
    ])
    func theAuthorityRunsFromTheSlashesToThePathQueryOrFragment(url: String, scheme: String, authority: String) throws {
        let found = try #require(Self.parts(url))
        #expect(found.scheme == scheme && found.authority == authority)
    }

    @Test(arguments: ["host/a", "://host", "http:/host", "http:", "http:/", "mailto:a@b", "a/b:c//d"])
    func urlsWithoutASchemeColonAndSlashesHaveNoParts(url: String) {
        #expect(Self.parts(url) == nil)
    }

    @Test func schemesCompareInAnyASCIICaseAndOnlyAsLetters() {
        var url = "HtTpS`http"
        url.withUTF8 { bytes in
            #expect(URLPrefix.equalsCaseless(bytes, 0..<5, "https"))
            #expect(!URLPrefix.equalsCaseless(bytes, 0..<4, "https"))
            #expect(!URLPrefix.equalsCaseless(bytes, 5..<10, "shttp"), "a backtick is not an s")
            #expect(URLPrefix.equalsCaseless(bytes, 6..<10, "http"))
        }
    }
}
