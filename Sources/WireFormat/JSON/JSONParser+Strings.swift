extension JSONParser {
    /// Parses the string starting at the opening quote at `index` and moves past its closing quote.
    ///
    /// A string without escapes is made from its bytes in one go; only strings with escapes are copied piecewise.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        var allBytes: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let text = allBytes < 0x80 ? String(decoding: utf8, as: UTF8.self) : try makeString(utf8, at: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if byte < 0x20 { throw JSONParseError(.controlCharacter, at: index) }
            allBytes |= byte
            index += 1
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    /// Continues a string at its first backslash, collecting the unescaped bytes in `scratch`.
    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return try scratch.withUnsafeBufferPointer { text throws(JSONParseError) in try makeString(text, at: start) }
            }
            if byte == UInt8(ascii: "\\") {
                try appendEscape()
                continue
            }
            if byte < 0x20 { throw JSONParseError(.controlCharacter, at: index) }
            let runStart = index
            repeat { index += 1 } while index < bytes.count && Self.isPlain(bytes[index])
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    /// A byte copied as it is: not a quote, a backslash or a control character.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// Makes a string of `utf8`, which must be valid UTF-8.
    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONParseError) -> String {
        // Decoding replaces invalid sequences with U+FFFD, so the bytes come back unchanged exactly when they were
        // valid; this stays on the standard library's specialised UTF-8 path.
        let text = String(decoding: utf8, as: UTF8.self)
        guard text.utf8.elementsEqual(utf8) else { throw JSONParseError(.invalidUTF8, at: start) }
        return text
    }

    /// Reads the escape at `index` (a backslash) and appends the bytes it stands for to `scratch`.
    private mutating func appendEscape() throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"): appendUTF8(try readEscapedScalar(escapeStart: escapeStart))
        default: throw JSONParseError(.invalidEscape, at: escapeStart)
        }
    }

    /// Reads the four hex digits after `\u` (and the second `\u` escape of a surrogate pair) as one scalar.
    private mutating func readEscapedScalar(escapeStart: Int) throws(JSONParseError) -> Unicode.Scalar {
        let unit = try readHexQuad(escapeStart: escapeStart)
        switch unit {
        case 0xD800...0xDBFF:
            let secondStart = index
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(.loneSurrogate, at: escapeStart)
            }
            index += 2
            let low = try readHexQuad(escapeStart: secondStart)
            guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError(.loneSurrogate, at: escapeStart) }
            let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            // Always a valid scalar: pairs cover exactly U+10000...U+10FFFF.
            return Unicode.Scalar(value)!
        case 0xDC00...0xDFFF:
            throw JSONParseError(.loneSurrogate, at: escapeStart)
        default:
            // Outside the surrogate range every 16-bit value is a scalar.
            return Unicode.Scalar(unit)!
        }
    }

    private mutating func readHexQuad(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let digit: UInt8
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = bytes[index] - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = bytes[index] - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = bytes[index] - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        // Swift's own encoder: no hand-rolled bit twiddling to get wrong.
        UTF8.encode(scalar) { scratch.append($0) }
    }
}
