import Foundation

/// Hides what a URL may carry as a credential: the query string, the fragment and any user info.
///
/// Presigned URLs put their signature in the query string, so only scheme, host, port and path survive.
public enum RedactedURL {
    /// `https://u:p@host/a/b?X-Amz-Signature=…` → `https://***@host/a/b?<redacted>`.
    public static func redact(_ url: String) -> String {
        var kept = Substring(url)
        var hadQuery = false
        if let cut = kept.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            hadQuery = true
            kept = kept[..<cut]
        }
        var result = String(kept)
        if let schemeEnd = result.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = result[authorityStart...].firstIndex(of: "/") ?? result.endIndex
            if let at = result[authorityStart..<authorityEnd].lastIndex(of: "@") {
                result.replaceSubrange(authorityStart..<at, with: "***")
            }
        }
        return hadQuery ? result + "?<redacted>" : result
    }

    /// `text` with every occurrence of `url`'s query string replaced, for messages that quote a URL.
    public static func scrub(_ text: String, of url: String) -> String {
        guard let mark = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
        let secret = String(url[url.index(after: mark)...])
        guard !secret.isEmpty else { return text }
        return text.replacingOccurrences(of: secret, with: "<redacted>")
    }
}
