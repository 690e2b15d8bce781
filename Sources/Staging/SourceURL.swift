import Foundation
import UploadEngine

/// A `url` source checked before anything is fetched: an absolute http(s) URL of sane length and characters.
///
/// Only the shape is checked here; where it may connect is decided on the connected address, by the download.
struct SourceURL: Sendable, Hashable {
    /// The URL as the job gave it.
    let text: String

    /// Longer URLs are refused as malformed.
    static let maximumLength = 8192

    /// Checks `text`; throws `ERR_SOURCE_FORBIDDEN` for a scheme other than http/https and
    /// `ERR_INVALID_FILE_OBJECT` for anything that is not a well-formed absolute URL with a host.
    init(_ text: String) throws(UploadError) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw UploadError(.invalidFileObject, "source.url must be 1 to \(Self.maximumLength) characters", retryable: false)
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw UploadError(
                .invalidFileObject, "source.url contains spaces, control or non-ASCII characters (percent-encode them)",
                retryable: false)
        }
        guard let colon = text.firstIndex(of: ":"), Self.isScheme(text[..<colon]) else {
            throw UploadError(.invalidFileObject, "source.url is not an absolute URL", retryable: false)
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw UploadError(.sourceForbidden, "source.url has scheme \(scheme): only http and https are fetched", retryable: false)
        }
        guard text[colon...].hasPrefix("://"), let components = URLComponents(string: text),
              let host = components.host, !host.isEmpty
        else {
            throw UploadError(.invalidFileObject, "source.url is not a well-formed http(s) URL with a host", retryable: false)
        }
        self.text = text
    }

    /// The cache key: the URL without its query and fragment, so the same object behind differently signed URLs
    /// is fetched once.
    var cacheKey: String {
        let end = text.firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        return String(text[..<end])
    }

    private static func isScheme(_ candidate: Substring) -> Bool {
        guard let first = candidate.first, first.isASCII, first.isLetter else { return false }
        return candidate.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
