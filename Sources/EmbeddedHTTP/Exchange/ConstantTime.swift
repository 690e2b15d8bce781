/// Comparison of a credential a request presents with the one a server holds.
public enum ConstantTime {
    /// Whether the two byte strings are equal, in a time that depends on their lengths only — never on where they
    /// first differ — so a client timing the answers learns nothing of the secret's bytes. (Lengths are not hidden:
    /// a secret's length is no secret worth the cost.)
    public static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    /// Whether the two strings' UTF-8 bytes are equal, compared as ``equal(_:_:)`` does.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        equal(lhs.utf8, rhs.utf8)
    }
}
