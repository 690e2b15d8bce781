/// The fuzzer's bytes, read front to back; zeros once they run out, so any input makes a whole job.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    /// Whether the next byte is odd.
    mutating func flag() -> Bool { next() % 2 == 1 }

    /// Text of about `limit` bytes: short, exactly at the limit, one byte past it, or a little under, made of one
    /// character — plain, escaped in JSON, of two to four bytes, blank, or forbidden.
    mutating func text(limit: Int, after prefix: String = "") -> String {
        let target: Int = switch next() % 4 {
        case 0: Int(next())
        case 1: limit
        case 2: limit + 1
        default: limit - Int(next() % 8)
        }
        let unit = ["a", "\"", "\\", "é", "€", "😀", " ", "\u{1}"][Int(next() % 8)]
        let room = max(0, target - prefix.utf8.count)
        let units = room / unit.utf8.count
        return prefix + String(repeating: unit, count: units) + String(repeating: "a", count: room - units * unit.utf8.count)
    }
}
