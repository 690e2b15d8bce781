/// A token of Swift source, as much of Swift as reading a manifest's declarations needs.
///
/// Comments vanish and a string literal is one token, so a `(` or a `"Worker"` inside either never reads as code.
enum ManifestToken: Equatable, Sendable {
    /// A name, keyword or number.
    case identifier(String)
    /// A string literal's text with escapes left as written; an interpolated one keeps only the text before its
    /// first `\(`.
    case string(String, interpolated: Bool)
    /// Any other single character.
    case punctuation(Character)

    /// The tokens of `source`.
    static func tokens(of source: String) -> [ManifestToken] {
        var reader = Reader(Array(source.unicodeScalars))
        var tokens: [ManifestToken] = []
        while let token = reader.next() { tokens.append(token) }
        return tokens
    }

    private struct Reader {
        private let scalars: [Unicode.Scalar]
        private var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        private func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        }

        mutating func next() -> ManifestToken? {
            skipTrivia()
            guard let scalar = peek() else { return nil }
            if scalar == "\"" { return string() }
            if isIdentifierPart(scalar) {
                let start = index
                while let s = peek(), isIdentifierPart(s) { index += 1 }
                return .identifier(String(String.UnicodeScalarView(scalars[start..<index])))
            }
            index += 1
            return .punctuation(Character(scalar))
        }

        /// Skips whitespace, `//` comments and (nested) `/* */` comments.
        private mutating func skipTrivia() {
            while let scalar = peek() {
                if scalar.properties.isWhitespace {
                    index += 1
                } else if scalar == "/", peek(1) == "/" {
                    while let s = peek(), s != "\n" { index += 1 }
                } else if scalar == "/", peek(1) == "*" {
                    index += 2
                    var depth = 1
                    while depth > 0, let s = peek() {
                        if s == "/", peek(1) == "*" { depth += 1; index += 2 }
                        else if s == "*", peek(1) == "/" { depth -= 1; index += 2 }
                        else { index += 1 }
                    }
                } else {
                    return
                }
            }
        }

        /// A `"…"` or `"""…"""` literal starting at the current `"`.
        private mutating func string() -> ManifestToken {
            let delimiter = peek(1) == "\"" && peek(2) == "\"" ? 3 : 1
            index += delimiter
            var text = String.UnicodeScalarView()
            var interpolated = false
            while let scalar = peek() {
                if scalar == "\"", delimiter == 1 || (peek(1) == "\"" && peek(2) == "\"") {
                    index += delimiter
                    break
                }
                if scalar == "\\", peek(1) == "(" {
                    interpolated = true
                    index += 2
                    skipInterpolation()
                    continue
                }
                if scalar == "\\", let escaped = peek(1) {
                    if !interpolated { text.append(scalar); text.append(escaped) }
                    index += 2
                    continue
                }
                if !interpolated { text.append(scalar) }
                index += 1
            }
            return .string(String(text), interpolated: interpolated)
        }

        /// Skips an interpolation's expression up to its closing `)`, strings inside it included.
        private mutating func skipInterpolation() {
            var depth = 1
            while depth > 0, let scalar = peek() {
                switch scalar {
                case "\"": _ = string()
                case "(": depth += 1; index += 1
                case ")": depth -= 1; index += 1
                default: index += 1
                }
            }
        }
    }
}
