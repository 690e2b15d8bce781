/// Hides what a URL may carry as a credential — its user info, every query value and its fragment — keeping what
/// says where it points: scheme, host, port, path and the names of the query arguments.
///
/// The one redaction of URLs: log lines and error messages use it for presigned URLs (whose signature and credential
/// are query values), and `attache config print` for every setting that holds a URL.
public enum RedactedURL {
    /// What replaces each hidden part.
    public static let mask = "***"

    /// `https://u:p@host/a/b?X-Amz-Signature=ff&a=1#f` → `https://***@host/a/b?X-Amz-Signature=***&a=***#***`.
    ///
    /// A query argument without `=` is hidden whole (a bare argument can be a key of its own); `;` is not read as a
    /// separator, so `a=1;b=2` hides `1;b=2` as one value.
    public static func redact(_ url: String) -> String {
        var rest = Substring(url)
        var fragment: Substring?
        if let mark = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = String(rest)
        if let schemeEnd = result.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = result[authorityStart...].firstIndex(of: "/") ?? result.endIndex
            if let at = result[authorityStart..<authorityEnd].lastIndex(of: "@") {
                result.replaceSubrange(authorityStart..<at, with: mask)
            }
        }
        if let query { result += "?" + redactQuery(query) }
        if let fragment { result += fragment.isEmpty ? "#" : "#" + mask }
        return result
    }

    /// `text` with every URL in it redacted: a URL starts at its `scheme://` and runs to the next white space, or to the
    /// comma before the next URL — so a comma-separated list of URLs (broker lists) is redacted URL by URL, while a
    /// comma inside one URL's query stays part of the value it hides.
    public static func redactingURLs(in text: String) -> String {
        let starts = urlStarts(in: text)
        guard !starts.isEmpty else { return text }
        var result = ""
        var copied = text.startIndex
        for (number, start) in starts.enumerated() {
            var end = number + 1 < starts.count ? starts[number + 1] : text.endIndex
            if end != text.endIndex {
                // The separator before the next URL: white space around at most one comma.
                while end > start, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
                if end > start, text[text.index(before: end)] == "," { end = text.index(before: end) }
            }
            end = text[start..<end].firstIndex(where: \.isWhitespace) ?? end
            result += text[copied..<start]
            result += redact(String(text[start..<end]))
            copied = end
        }
        result += text[copied...]
        return result
    }

    /// `text` with what `url` hides replaced wherever the text quotes it (the whole URL, its query and fragment, its
    /// user info), for messages that echo a URL — a library's error text, say.
    public static func scrub(_ text: String, of url: String) -> String {
        var text = text.replacingOccurrences(of: url, with: redact(url))
        if let mark = url.firstIndex(where: { $0 == "?" || $0 == "#" }), url.index(after: mark) < url.endIndex {
            let secret = String(url[mark...])
            let hidden = String(redact(url).drop { $0 != "?" && $0 != "#" })
            text = text.replacingOccurrences(of: secret, with: hidden)
        }
        if let schemeEnd = url.range(of: "://") {
            let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if let at = authority.lastIndex(of: "@"), at > authority.startIndex {
                text = text.replacingOccurrences(of: String(authority[..<at]) + "@", with: mask + "@")
            }
        }
        return text
    }

    private static func redactQuery(_ query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { argument in
            guard !argument.isEmpty else { return "" }
            guard let equals = argument.firstIndex(of: "=") else { return mask }
            return argument[..<equals] + "=" + mask
        }.joined(separator: "&")
    }

    /// Where each `scheme://` in `text` begins: a letter, then letters, digits, `+`, `-` or `.`, at the start of the
    /// text or after a character that cannot be part of a scheme.
    private static func urlStarts(in text: String) -> [String.Index] {
        var starts: [String.Index] = []
        var searched = text.startIndex
        while let marker = text.range(of: "://", range: searched..<text.endIndex) {
            searched = marker.upperBound
            var start = marker.lowerBound
            while start > text.startIndex, isSchemeCharacter(text[text.index(before: start)]) {
                start = text.index(before: start)
            }
            // The scheme starts with a letter: digits or signs before it (`1+https://`) are not part of it.
            while start < marker.lowerBound, !(text[start].isASCII && text[start].isLetter) {
                start = text.index(after: start)
            }
            guard start < marker.lowerBound else { continue }
            if let last = starts.last, start < last { continue }
            starts.append(start)
        }
        return starts
    }

    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "+" || character == "-" || character == ".")
    }
}
