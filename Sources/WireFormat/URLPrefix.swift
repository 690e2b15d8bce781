/// The `scheme://authority` at the front of a URL, read on its bytes: the checks made on every request (is it
/// http(s) with a host, which origin is it, where does its path start) find these two parts the same way.
public enum URLPrefix {
    /// The scheme (everything before the first `:`, not empty) and the authority (after the `//` that must follow
    /// that `:`, up to the first `/`, `?` or `#`, possibly empty); nil for a URL not shaped so.
    public static func parts(of url: UnsafeBufferPointer<UInt8>) -> (scheme: Range<Int>, authority: Range<Int>)? {
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")), colon > 0, url.count - colon >= 3,
              url[colon + 1] == UInt8(ascii: "/"), url[colon + 2] == UInt8(ascii: "/") else { return nil }
        var end = colon + 3
        while end < url.count, url[end] != UInt8(ascii: "/"), url[end] != UInt8(ascii: "?"), url[end] != UInt8(ascii: "#") {
            end += 1
        }
        return (0..<colon, (colon + 3)..<end)
    }

    /// Whether `url[range]` is `lowercase` in any ASCII case (OR-ing 0x20 lowers a capital and keeps a small
    /// letter; `lowercase` is letters only, so no other byte can match).
    public static func equalsCaseless(_ url: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                                      _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        for (offset, index) in range.enumerated() where url[index] | 0x20 != lowercase.utf8Start[offset] { return false }
        return true
    }
}
