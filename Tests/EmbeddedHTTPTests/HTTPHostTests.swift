import Testing
@testable import EmbeddedHTTP

/// `Host` values and the entries that name them: what parses, and the canonical form it compares in.
@Suite struct HTTPHostTests {
    @Test(arguments: [
        ("localhost", "localhost", nil),
        ("LocalHost:9470", "localhost", 9470),
        ("127.0.0.1:80", "127.0.0.1", 80),
        ("dash.example.com", "dash.example.com", nil),
        ("internal_name:8443", "internal_name", 8443),
        ("[::1]:9470", "[::1]", 9470),
        ("[0:0:0:0:0:0:0:1]", "[::1]", nil),
        ("[FE80::1]:1", "[fe80::1]", 1),
    ] as [(String, String, UInt16?)])
    func aHostIsReadInCanonicalForm(text: String, name: String, port: UInt16?) throws {
        let host = try #require(HTTPHost(text))
        #expect(host.name == name)
        #expect(host.port == port)
    }

    @Test(arguments: ["", ":80", "http://dash.example.com", "dash.example.com/path", "user@dash.example.com", "*.example.com", "*",
                      "dash.example.com:", "dash.example.com:0", "dash.example.com:65536", "dash.example.com:+80", "dash.example.com:80:81",
                      "[::1", "[localhost]", "[127.0.0.1]:80", "[::1]x", "dash example", "dash\r\nexample"])
    func anythingElseIsRefused(text: String) {
        #expect(HTTPHost(text) == nil)
    }
}
