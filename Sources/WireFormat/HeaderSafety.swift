/// The one rule for text that may end up in an HTTP or Kafka header: no control character at all.
///
/// A CR or LF in a header value ends the line and starts a header of the sender's choosing; a NUL cuts the value
/// short in C. Every entry point (job fields, mime types, presign answers) and the HTTP layer itself use this one
/// check, so they cannot drift apart. Tab counts as a control character too: no field that reaches a header needs one.
public enum HeaderSafety {
    /// Whether `text` can go into a header: no C0 or C1 control character, DEL, or Unicode line or paragraph
    /// separator.
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        // ASCII, by far the usual case, is judged on its bytes; only other text pays for scalar properties.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return true }
        return !text.unicodeScalars.contains(where: isUnsafe)
    }

    /// ``isSafe(_:)-(StringProtocol)`` for a `String`, the usual case (every header of every request): its bytes are
    /// read in place, not through the generic view.
    public static func isSafe(_ text: String) -> Bool {
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if ascii == true { return true }
        return !text.unicodeScalars.contains(where: isUnsafe)
    }

    /// Whether every name and value of `headers` can be sent.
    public static func isSafe(_ headers: [HTTPHeader]) -> Bool {
        headers.allSatisfy { isSafe($0.name) && isSafe($0.value) }
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        return switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
