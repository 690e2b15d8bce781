import Testing
import UploadEngine

@testable import HTTPTransport

/// A URL under an origin libcurl already parsed is checked without a second parse; the outcome must be libcurl's
/// own for every URL, remembered origin or not.
@Suite struct ParsedOriginsTests {
    private static let origins = [
        "http://127.0.0.1:9000", "https://bucket.s3.amazonaws.com", "HTTP://Host", "https://user:pw@host:443",
        "http://[::1]:8080", "http://host:", "http://h\\x", "https://example.com:99999", "ftp://host", "http://",
        "http:/host", "https://ex ample.com", "http://host\u{7F}", "http://hóst", "mailto:someone", "://host",
        "h ttp://host", "http://a@b@c", "http:/", "http:", "http://?", "http://#",
    ]
    private static let rests = [
        "", "/", "/a/b", "/b-1/f1/photo%20one.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab12",
        "?x=1", "#frag", "/a/../b?x=1#y", "/a b", "/a\tb", "/a\r\nX: 1", "/\u{7F}", "/é", "/%zz", "/a?b=[c]&d='e'",
        "/!$&'()*+,;=:@", "/~_.-", "/a\\b", "/a\"b", "/a<b>", "/a{b}", "/a|b", "/a^b", "/a`b", "x", "@evil", ":80/x",
    ]

    /// Every ASCII character, controls included, and two that are not ASCII.
    private static let characters = (0...0x7F).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "\u{2028}"]

    /// What an authority is made of, and what it must not hold.
    private static let authorityPieces = "ab9.-_@:[]%\\ \u{1}é".map(String.init) + ["::1", "127.0.0.1", "host", "443"]

    /// An origin drawn from schemes, separators and authority pieces, most of them wrong in some way.
    private static func drawnOrigin(_ random: inout JitterRandom) -> String {
        let scheme = ["http", "https", "HTTP", "hTtPs", "ftp", "h+t", "", "http "].randomElement(using: &random)!
        let separator = ["://", "://", "://", ":/", ":///", "//", ":"].randomElement(using: &random)!
        let length = Int(random.next() % 9)
        return scheme + separator + (0..<length).map { _ in Self.authorityPieces.randomElement(using: &random)! }.joined()
    }

    /// An origin libcurl takes: a scheme in some case, perhaps user info, a name or an address, perhaps a port.
    private static func drawnValidOrigin(_ random: inout JitterRandom) -> String {
        let scheme = ["http", "https", "HTTP", "Https"].randomElement(using: &random)!
        let user = ["", "", "u@", "u:p@", "a%40b@"].randomElement(using: &random)!
        let host = ["h\(random.next() % 50).test", "10.0.0.\(random.next() % 255)", "[::1]", "LOCALHOST", "xn--bcher-kva.de"]
            .randomElement(using: &random)!
        let port = random.next() % 2 == 0 ? "" : ":\(random.next() % 65_536)"
        return scheme + "://" + user + host + port
    }

    @Test func everyURLGetsLibcurlsOwnAnswerWhetherItsOriginIsRememberedOrNot() {
        var random = JitterRandom(seed: 0x0A77_AC4E)
        // Drawn once, then reused: a remembered origin is only tried when its URLs come back.
        // Half the URLs come from origins libcurl takes, more of them than are remembered at once.
        let valid = (0..<100).map { _ in Self.drawnValidOrigin(&random) }
        let pool = Self.origins + (0..<300).map { _ in Self.drawnOrigin(&random) }
        let origins = ParsedOrigins()
        var remembered = 0
        for step in 0..<20_000 {
            var url = (random.next() % 2 == 0 ? valid : pool).randomElement(using: &random)!
                + Self.rests.randomElement(using: &random)!
            if random.next() % 2 == 0 {
                let length = Int(random.next() % 6)
                url += String((0..<length).map { _ in Self.characters.randomElement(using: &random)! })
            }
            let expected = Self.outcome { () throws(HTTPTransportError) in try CurlURL.validate(url) }
            if origins.remembers(url) { remembered += 1 }
            let checked = Self.outcome { () throws(HTTPTransportError) in try origins.validate(url) }
            #expect(checked == expected, "step \(step): \(url.debugDescription)")
            if checked != expected { return }
        }
        // The draw must reach the remembered path often, or the comparison says little about it.
        #expect(remembered > 1_000)
    }

    @Test func anOriginIsRememberedOnlyOnceAURLUnderItPassed() throws {
        let origins = ParsedOrigins()
        #expect(!origins.remembers("http://127.0.0.1:9000/a"))
        #expect(throws: HTTPTransportError.self) { try origins.validate("http://127.0.0.1:9000/a b") }
        #expect(!origins.remembers("http://127.0.0.1:9000/a"))

        try origins.validate("http://127.0.0.1:9000/first?x=1")

        #expect(origins.remembers("http://127.0.0.1:9000/second"))
        #expect(!origins.remembers("http://127.0.0.1:9001/second"))
        #expect(!origins.remembers("http://127.0.0.1:9000/a b"), "a rest libcurl could refuse is always parsed")
        #expect(throws: HTTPTransportError.self) { try origins.validate("http://127.0.0.1:9000/a b") }
        #expect(throws: HTTPTransportError.self) { try origins.validate("http://127.0.0.1:9000/a\u{7F}") }
    }

    @Test func aRefusedOriginIsNeverRemembered() {
        let origins = ParsedOrigins()
        for url in ["ftp://host/a", "https://example.com:99999/a", "http://"] {
            #expect(throws: HTTPTransportError.self) { try origins.validate(url) }
            #expect(!origins.remembers(url))
        }
    }

    @Test func theOriginsRememberedAreBoundedAndTheOldestMakesRoom() throws {
        let origins = ParsedOrigins()
        for port in 0..<ParsedOrigins.capacity + 1 {
            try origins.validate("http://127.0.0.1:\(10_000 + port)/a")
        }
        #expect(!origins.remembers("http://127.0.0.1:10000/a"))
        #expect(origins.remembers("http://127.0.0.1:10001/a"))
        #expect(origins.remembers("http://127.0.0.1:\(10_000 + ParsedOrigins.capacity)/a"))
    }

    @Test(arguments: [
        ("http://host", 11), ("http://host/a?b#c", 11), ("https://u@h:1?q", 13), ("http://h#f", 8), ("HTTP://Host/", 11),
    ])
    func theOriginEndsWhereThePathQueryOrFragmentBegins(url: String, length: Int) {
        var url = url
        #expect(url.withUTF8 { ParsedOrigins.originLength($0) } == length)
    }

    @Test(arguments: ["host/a", "http:/host", "://host", "http:///host", "http://?x", "http://host/a b", "http://host/\u{0}", "http://host/é"])
    func urlsWithoutASchemeAndAuthorityOrWithBytesLibcurlCouldRefuseHaveNoOriginToRemember(url: String) {
        var url = url
        #expect(url.withUTF8 { ParsedOrigins.originLength($0) } == nil)
    }

    private enum Outcome: Equatable {
        case passed
        case refused(HTTPTransportError.Code)
    }

    private static func outcome(_ check: () throws(HTTPTransportError) -> Void) -> Outcome {
        do {
            try check()
            return .passed
        } catch {
            return .refused(error.code)
        }
    }
}
