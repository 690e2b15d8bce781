import Testing
@testable import EmbeddedHTTP

@Suite struct BindAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1", "127.0.0.1", false),
        ("localhost", "127.0.0.1", "127.0.0.1", false),
        ("0.0.0.0", "0.0.0.0", "127.0.0.1", true),
        ("::1", "::1", "[::1]", false),
        ("[::1]", "::1", "[::1]", false),
        ("::", "::", "[::1]", true),
        ("0:0:0:0:0:0:0:1", "::1", "[::1]", false),
    ])
    func hostIsReadAsALiteralAddressWithAUsableURLHost(
        host: String, text: String, urlHost: String, wildcard: Bool
    ) throws {
        let address = try BindAddress(host)

        #expect(address.text == text)
        #expect(address.urlHost == urlHost)
        #expect(address.isWildcard == wildcard)
    }

    @Test func ipv6AddressIsBracketedBeforeAPort() throws {
        #expect(try BindAddress("::1").hostText == "[::1]")
        #expect(try BindAddress("10.1.2.3").hostText == "10.1.2.3")
    }
}
