import Foundation
import Testing
import UploadEngine

/// One hostile or malformed source and the exact error staging it must give; the table in `docs/sources.md`
/// lists the same cases, row for row.
struct HostileSource: Sendable, CustomTestStringConvertible {
    enum Input: Sendable {
        /// A URL; `{server}` stands for the test server's `http://127.0.0.1:<port>`, `{port}` for its port.
        case url(String)
        case path(String)
        case data([UInt8], shown: String)
        case malformed(String)
    }

    var input: Input
    var declared: String?
    /// The error; nil when the input is staged (defused rather than refused).
    var expected: UploadErrorCode?
    /// Why, in a few words, for the documentation.
    var why: String
    /// A URL (with the same `{server}` substitutions) staged and released first, so the case meets a cache entry for its path.
    var primer: String?

    init(_ input: Input, declared: String? = nil, _ expected: UploadErrorCode?, _ why: String, primer: String? = nil) {
        self.input = input
        self.declared = declared
        self.expected = expected
        self.why = why
        self.primer = primer
    }

    /// The input as the documentation shows it.
    var shown: String {
        switch input {
        case .url(let url) where url.count > 200: "`\(url.prefix(24))…` (\(url.count) characters)"
        case .url(let url): "`\(url.replacingOccurrences(of: "\r\n", with: "\\r\\n"))`"
        case .path(let path): "path `\(path.replacingOccurrences(of: "\0", with: "\\0"))`"
        case .data(_, let shown): "inline \(shown)"
        case .malformed(let reason): "malformed entry (\(reason))"
        }
    }

    /// The row of the documentation's table.
    var markdownRow: String {
        "| \(shown) | \(declared.map { "`\($0)`" } ?? "—") | \(expected.map { "`\($0.rawValue)`" } ?? "none: staged") | \(why) |"
    }

    var testDescription: String { "\(shown) → \(expected?.rawValue ?? "staged")" }
}

extension HostileSource {
    static let all: [HostileSource] = [
        // Scheme and shape.
        .init(.url("file:///etc/passwd"), .sourceForbidden, "only http and https are fetched"),
        .init(.url("ftp://127.0.0.1/photo.jpg"), .sourceForbidden, "only http and https are fetched"),
        .init(.url("gopher://127.0.0.1:70/_GET%20/"), .sourceForbidden, "only http and https are fetched"),
        .init(.url("dict://127.0.0.1:11211/stat"), .sourceForbidden, "only http and https are fetched"),
        .init(.url("javascript:alert(1)"), .sourceForbidden, "only http and https are fetched"),
        .init(.url("data:image/png;base64,iVBORw0KGgo="), .sourceForbidden, "only http and https are fetched"),
        .init(.url("//127.0.0.1:{port}/photo.jpg"), .invalidFileObject, "not an absolute URL"),
        .init(.url("http:/photo.jpg"), .invalidFileObject, "no authority"),
        .init(.url("http://"), .invalidFileObject, "no host"),
        .init(.url("http://[::1/photo.jpg"), .invalidFileObject, "unbalanced IPv6 brackets"),
        .init(.url("http://127.0.0.1:99999/photo.jpg"), .invalidFileObject, "port out of range"),
        .init(.url("http://127.0.0.1/a photo.jpg"), .invalidFileObject, "unencoded space"),
        .init(.url("http://127.0.0.1/\r\nX-Injected: 1"), .invalidFileObject, "header injection attempt"),
        .init(.url("http://127.0.0.1/" + String(repeating: "a", count: 8200)), .invalidFileObject, "longer than 8192 characters"),
        // Addresses, however they are spelled.
        .init(.url("http://127.0.0.2:{port}/photo.jpg"), .sourceForbidden, "loopback, not the allow-listed 127.0.0.1"),
        .init(.url("http://user:secret@127.0.0.2:{port}/photo.jpg"), .sourceForbidden, "credentials change nothing"),
        .init(.url("http://2130706434:{port}/photo.jpg"), .sourceForbidden, "decimal form of 127.0.0.2"),
        .init(.url("http://0177.0.0.2:{port}/photo.jpg"), .sourceForbidden, "octal form of 127.0.0.2"),
        .init(.url("http://0x7f000002:{port}/photo.jpg"), .sourceForbidden, "hex form of 127.0.0.2"),
        .init(.url("http://127.2:{port}/photo.jpg"), .sourceForbidden, "short form of 127.0.0.2"),
        .init(.url("http://[::1]:{port}/photo.jpg"), .sourceForbidden, "IPv6 loopback"),
        .init(.url("http://[::ffff:127.0.0.2]:{port}/photo.jpg"), .sourceForbidden, "IPv4-mapped loopback"),
        .init(.url("http://[::ffff:a9fe:a9fe]/latest/meta-data/"), .sourceForbidden, "IPv4-mapped metadata address"),
        .init(.url("http://169.254.169.254/latest/meta-data/"), .sourceForbidden, "cloud metadata (link-local)"),
        .init(.url("http://0.0.0.0:{port}/photo.jpg"), .sourceForbidden, "unspecified address"),
        .init(.url("http://0:{port}/photo.jpg"), .sourceForbidden, "0, the unspecified address"),
        .init(.url("http://[::]:{port}/photo.jpg"), .sourceForbidden, "IPv6 unspecified address"),
        .init(.url("http://10.0.0.1/photo.jpg"), .sourceForbidden, "private (RFC 1918)"),
        .init(.url("http://172.16.0.1/photo.jpg"), .sourceForbidden, "private (RFC 1918)"),
        .init(.url("http://192.168.0.1/photo.jpg"), .sourceForbidden, "private (RFC 1918)"),
        .init(.url("http://100.64.0.1/photo.jpg"), .sourceForbidden, "shared address space (CGNAT)"),
        .init(.url("http://100.100.100.200/latest/meta-data/"), .sourceForbidden, "cloud metadata in CGNAT space"),
        .init(.url("http://[fd00:ec2::254]/latest/meta-data/"), .sourceForbidden, "IPv6 cloud metadata (unique-local)"),
        .init(.url("http://[fe80::1]/photo.jpg"), .sourceForbidden, "IPv6 link-local"),
        .init(.url("http://224.0.0.1/photo.jpg"), .sourceForbidden, "multicast"),
        .init(.url("http://255.255.255.255/photo.jpg"), .sourceForbidden, "broadcast"),
        .init(.url("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/"), .sourceForbidden, "NAT64 form of the metadata address"),
        .init(.url("http://168.63.129.16/machine"), .sourceForbidden, "cloud metadata in public space"),
        // Redirects: every hop is checked where it connects.
        .init(.url("{server}/redirect/metadata"), .sourceForbidden, "redirect to 169.254.169.254"),
        .init(.url("{server}/redirect/private"), .sourceForbidden, "redirect to 10.0.0.1"),
        .init(.url("{server}/redirect/ipv6-loopback"), .sourceForbidden, "redirect to [::1]"),
        .init(.url("{server}/redirect/decimal"), .sourceForbidden, "redirect to a decimal loopback address"),
        .init(.url("{server}/redirect/file"), .sourceForbidden, "redirect to file://"),
        .init(.url("{server}/redirect/gopher"), .sourceForbidden, "redirect to gopher://"),
        .init(.url("{server}/redirect/loop"), .sourceUnresolvable, "more than 3 redirects"),
        // Answers.
        .init(.url("{server}/status/404"), .sourceUnresolvable, "not found; never re-signed"),
        .init(.url("{server}/status/410"), .sourceUnresolvable, "gone, and gone again after the one re-sign"),
        .init(.url("{server}/status/403"), .sourceUnresolvable, "forbidden, and again after the one re-sign"),
        .init(.url("{server}/status/300"), .sourceUnresolvable, "a redirect without a location"),
        .init(.url("{server}/status/503"), .sourceFetchFailed, "server error: retried later"),
        .init(.url("{server}/trickle"), .sourceFetchFailed,
              "a byte every 100 ms: never a stall, but under `sources.minSpeed` over the stall window (`Transfer+Setup`, libcurl's low-speed check)"),
        .init(.url("{server}/endless-slow"), .sourceFetchFailed,
              "40 KiB/s without end: above the speed floor, cut at `sources.fetchTimeout` (`SourceStaging+URL`)"),
        .init(.url("{server}/cached/private.jpg?sig=forged"), .sourceUnresolvable,
              "a forged signature on a cached path: the conditional GET is refused 403 (again after the re-sign), and the cache is never the fallback (`SourceStaging+URL`)",
              primer: "{server}/cached/private.jpg?sig=good"),
        .init(.url("{server}/cached/download?id=2"), declared: "image/png", nil,
              "a query-differing URL of a cached path (?id=1 cached a PDF): its own PNG, never ?id=1's bytes (`SourceCache`, `SourceValidator`)",
              primer: "{server}/cached/download?id=1"),
        .init(.url("{server}/resign-to/file"), .sourceForbidden, "re-signed to file://"),
        .init(.url("{server}/resign-to/metadata"), .sourceForbidden, "re-signed to 169.254.169.254"),
        // Content.
        .init(.url("{server}/content/pdf"), declared: "image/jpeg", .invalidFileObject, "PDF bytes declared as an image"),
        .init(.url("{server}/content/zip"), declared: "image/png", .invalidFileObject, "ZIP bytes declared as an image"),
        .init(.url("{server}/content/png"), declared: "video/mp4", .invalidFileObject, "PNG bytes declared as video"),
        .init(.url("{server}/content/jpeg"), declared: "application/pdf", .invalidFileObject, "JPEG bytes declared as PDF"),
        .init(.url("{server}/content/pdf"), declared: "text/plain", .invalidFileObject, "PDF bytes declared as text"),
        .init(.data(SampleBytes.pdf, shown: "PDF bytes"), declared: "image/png", .invalidFileObject, "PDF bytes declared as an image"),
        .init(.path("docs/archive.zip"), declared: "audio/mpeg", .invalidFileObject, "ZIP bytes declared as audio"),
        .init(.data(HostileSource.claimingJPEG, shown: "JPEG whose twelve EXIF blocks claim 1 GB of GPS values"), declared: "image/jpeg", nil,
              "location stripped segment by segment in one 64 KiB buffer, memory flat (`LocationMetadata`, `ExifGPS`)"),
        .init(.data(HostileSource.loopingJPEG, shown: "JPEG whose GPS IFD points back into IFD0"), declared: "image/jpeg", nil,
              "no IFD chain is followed; the EXIF block is blanked whole (`ExifGPS`)"),
        .init(.url("{server}/content/large"), .fileSizeExceeded, "Content-Length over the 1 MiB limit"),
        .init(.url("{server}/content/endless"), .fileSizeExceeded, "endless chunked body, cut at the limit"),
        // Paths.
        .init(.path("../outside.pdf"), .sourceForbidden, "climbs out of the root"),
        .init(.path("a/../../outside.pdf"), .sourceForbidden, "climbs out of the root"),
        .init(.path("./../outside.pdf"), .sourceForbidden, "climbs out of the root"),
        .init(.path("../../../../nonexistent"), .sourceForbidden, "climbs out, even to nothing"),
        .init(.path("a//./../../outside.pdf"), .sourceForbidden, "climbs out past empty and `.` components"),
        .init(.path(".../outside.pdf"), .sourceUnresolvable, "`...` is a name like any other, not a climb"),
        .init(.path("/etc/passwd"), .sourceForbidden, "absolute path"),
        .init(.path("link-out.pdf"), .sourceForbidden, "symlink to a file outside the root"),
        .init(.path("dir-out/secret.pdf"), .sourceForbidden, "through a symlinked directory outside the root"),
        .init(.path("pipe"), .sourceForbidden, "a FIFO, not a regular file (and no hang)"),
        .init(.path("missing.pdf"), .sourceUnresolvable, "no such file"),
        .init(.path("folder"), .sourceUnresolvable, "a directory"),
        .init(.path("loop"), .sourceUnresolvable, "a symlink loop"),
        .init(.path("notes\0.pdf"), .invalidFileObject, "NUL byte"),
        .init(.path(""), .invalidFileObject, "empty path"),
        .init(.malformed("source must have exactly one of url, path, data"), .invalidFileObject, "the job's entry is malformed"),
    ]
}

extension HostileSource {
    /// Twelve APP1 segments, each a GPS IFD of 2,000 entries claiming the same 40 KiB value area.
    static let claimingJPEG: [UInt8] = {
        let segment = LocationMetadataTests.claimingSegment()
        let length = segment.count + 2
        let app1 = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + segment
        return [0xFF, 0xD8] + Array((0..<12).map { _ in app1 }.joined()) + [0xFF, 0xDA, 0x00, 0x04, 0x01, 0x00, 0x61, 0xFF, 0xD9]
    }()

    /// An EXIF block whose GPS pointer leads back to IFD0.
    static let loopingJPEG: [UInt8] = {
        let tiff = LocationMetadataTests.tiff(gps: 8, rest: LocationMetadataTests.gpsIFD(
            [LocationMetadataTests.entry(tag: 2, type: 5, count: 3, value: 60)], tail: [UInt8](repeating: 7, count: 24)))
        return LocationStrippingTests.jpeg(app1: Array("Exif".utf8) + [0, 0] + tiff)
    }()
}
