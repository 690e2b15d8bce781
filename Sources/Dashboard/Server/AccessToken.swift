import EmbeddedHTTP
import WireFormat

/// The token every request must carry when the dashboard has one (`--token`, `dashboard.token`): as
/// `Authorization: Bearer T`, or as the cookie that opening `/?token=T` sets. Compared in constant time.
struct AccessToken: Sendable {
    private let token: String
    /// The cookie's name, with the server's port in it: browsers send a host's cookies to every port of it, and two
    /// dashboards on one machine must not overwrite each other's.
    private let cookieName: String
    /// The cookie's value: the token percent-encoded, so that any token makes a valid cookie.
    private let cookieValue: String

    /// The token `token` of the dashboard listening on `port`; nil when there is none.
    init?(_ token: String?, port: UInt16) {
        guard let token, !token.isEmpty else { return nil }
        self.token = token
        cookieName = "attache-dashboard-\(port)"
        cookieValue = Self.percentEncoded(token)
    }

    /// Whether the request carries the token, in its `Authorization` header or its cookie.
    func admits(_ head: HTTPRequestHead) -> Bool {
        var carried = false
        if let authorization = head.header("authorization"), let offered = Self.bearer(authorization) {
            carried = ConstantTime.equal(offered.utf8, token.utf8)
        }
        for header in head.headers where header.name.lowercased() == "cookie" {
            for value in Self.cookies(named: cookieName, in: header.value) where ConstantTime.equal(value.utf8, cookieValue.utf8) {
                carried = true
            }
        }
        return carried
    }

    /// Whether `offered` (a `?token=` value, percent-decoded) is the token.
    func matches(_ offered: String) -> Bool {
        ConstantTime.equal(offered, token)
    }

    /// The cookie that carries the token from now on: only to this server's pages, never to a script, never on a
    /// request another site starts.
    var setCookie: HTTPHeader {
        HTTPHeader("Set-Cookie", "\(cookieName)=\(cookieValue); Path=/; HttpOnly; SameSite=Strict")
    }

    /// The credentials of `Authorization: Bearer T` (the scheme in any case).
    private static func bearer(_ value: String) -> Substring? {
        let trimmed = value.drop { $0 == " " }
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        return trimmed.dropFirst(7).drop { $0 == " " }
    }

    /// The values of the cookies called `name` in one `Cookie` header (`a=1; b=2`).
    private static func cookies(named name: String, in header: String) -> [Substring] {
        header.split(separator: ";").compactMap { pair in
            let pair = pair.drop { $0 == " " }
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] == name else { return nil }
            return pair[pair.index(after: equals)...]
        }
    }

    private static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
