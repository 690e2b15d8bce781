extension String {
    /// Whether the two strings are equal when ASCII letters are compared without case, as HTTP field names are.
    ///
    /// Byte by byte: Foundation's `caseInsensitiveCompare` goes through CFString and the locale, which made header
    /// lookups a visible share of a small transfer's CPU; and field names are ASCII, so Unicode case rules would
    /// be wrong anyway.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return utf8.elementsEqual(other.utf8) { Self.foldASCII($0) == Self.foldASCII($1) }
    }

    private static func foldASCII(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
