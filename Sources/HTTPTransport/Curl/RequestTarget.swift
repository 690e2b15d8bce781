import Foundation
import WireFormat

/// A URL with a query, handed to libcurl in two parts: the URL up to its query, and the request line's target
/// (`/path?query`) exactly as the URL has it.
///
/// libcurl 7.88 writes a URL's query a character at a time (its printf appends each character to a buffer on its
/// own) three times a request: the URL it parsed, the path it offers the authentication headers, and the request
/// line. A presigned upload URL carries a query of some 300 characters, and those passes were about 100,000
/// instructions of a small upload, more than the upload's own JSON, snapshot and signing together. Given a target,
/// libcurl copies it into the request line in one piece, and the URL it parses has no query left to write out.
struct RequestTarget: Equatable {
    /// The URL without its query.
    let url: String
    /// The path and query, as the request line carries them.
    let target: String

    /// Whether libcurl would send plain `http` URLs through a proxy from the environment (it reads `http_proxy`,
    /// then `all_proxy` and `ALL_PROXY`): such a proxy needs the whole URL on the request line, not a path.
    static let environmentProxiesHTTP: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "all_proxy", "ALL_PROXY"].contains { !(environment[$0] ?? "").isEmpty }
    }()

    /// The two parts of `url`, or nil when it goes to libcurl whole: it has no query; it has a fragment or dot
    /// segments (libcurl drops the one and resolves the other in what it sends); redirects are followed (each hop
    /// needs its own target); or it is plain `http` through a proxy.
    static func split(_ url: String, followsRedirects: Bool,
                      proxiedHTTP: Bool = environmentProxiesHTTP) -> RequestTarget? {
        guard !followsRedirects else { return nil }
        var url = url
        url.makeContiguousUTF8()
        // Offsets into the bytes: this runs for every request, and String's indices cost more than the split saves.
        return url.utf8.withContiguousStorageIfAvailable { bytes -> RequestTarget? in
            // The path starts where the authority ends, with a `/` before the query.
            guard let query = bytes.firstIndex(of: UInt8(ascii: "?")), !bytes.contains(UInt8(ascii: "#")),
                  let (scheme, authority) = URLPrefix.parts(of: bytes), authority.upperBound < query,
                  case let path = authority.upperBound, bytes[path] == UInt8(ascii: "/"),
                  !hasDotSegment(bytes[path..<query]) else { return nil }
            guard URLPrefix.equalsCaseless(bytes, scheme, "https")
                    || (URLPrefix.equalsCaseless(bytes, scheme, "http") && !proxiedHTTP) else { return nil }
            return RequestTarget(url: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<query]), as: UTF8.self),
                                 target: String(decoding: UnsafeBufferPointer(rebasing: bytes[path...]), as: UTF8.self))
        } ?? nil
    }

    /// Whether a path has a `.` or `..` segment, plain or percent-encoded (libcurl resolves both): a `/` followed by
    /// `.` or by `%2e` in either case.
    private static func hasDotSegment(_ path: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        for index in path.indices where path[index] == UInt8(ascii: "/") {
            let next = path[(index + 1)...].prefix(3)
            if next.first == UInt8(ascii: ".") || next.elementsEqual("%2e".utf8) || next.elementsEqual("%2E".utf8) {
                return true
            }
        }
        return false
    }
}
