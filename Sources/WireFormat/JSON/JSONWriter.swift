/// A small, fast JSON writer for hot output (events, presign calls, messages): fields in a fixed order, no
/// reflection. Values are written as they come; the caller keeps objects balanced.
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (`{`).
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the innermost object (`}`).
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array (`[`).
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the innermost array (`]`).
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` — the value follows.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a string value, escaped.
    public mutating func string(_ value: String) {
        separate()
        writeString(value)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func int(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) { return int(small) }
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Writes an integer value. Concrete, unlike the generic form, which a caller in another module reaches
    /// unspecialised (every operation through witness tables): the one events and snapshots call.
    public mutating func int(_ value: Int64) {
        separate()
        appendDecimal(value)
        needsComma = true
    }

    /// Writes an integer value (the concrete form, as for `Int64`).
    public mutating func int(_ value: Int) { int(Int64(value)) }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// Writes a string whose bytes `append` adds straight to the output, unescaped: for text the caller knows needs
    /// no escaping (timestamps, digits), without building a `String` first.
    public mutating func rawString(_ append: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(&bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes any JSON value; object members are written sorted by name, so equal values give equal bytes.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let number): int(number)
        case .double(let number):
            separate()
            bytes.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
            needsComma = true
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            elements.forEach { self.value($0) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                key(name)
                self.value(member)
            }
            endObject()
        }
    }

    /// Writes any JSON value for people to read (a command's `--json` output): one member or element per line, two
    /// spaces deeper per level, `"name": value`, empty containers as `{}` and `[]`. Members are sorted by name as
    /// `value(_:)` sorts them, so two outputs can be diffed line by line.
    public mutating func indentedValue(_ value: JSONValue) {
        indentedValue(value, depth: 0)
    }

    private mutating func indentedValue(_ value: JSONValue, depth: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            beginArray()
            for element in elements {
                startLine(depth: depth + 1)
                indentedValue(element, depth: depth + 1)
            }
            bytes.append(UInt8(ascii: "\n"))
            indent(depth)
            endArray()
        case .object(let members) where !members.isEmpty:
            beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                startLine(depth: depth + 1)
                key(name)
                bytes.append(UInt8(ascii: " "))
                indentedValue(member, depth: depth + 1)
            }
            bytes.append(UInt8(ascii: "\n"))
            indent(depth)
            endObject()
        default:
            self.value(value)
        }
    }

    /// Ends the previous member or element (its comma) and starts the next one on a new line at `depth`.
    private mutating func startLine(depth: Int) {
        separate()
        bytes.append(UInt8(ascii: "\n"))
        indent(depth)
        needsComma = false
    }

    private mutating func indent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Writes `"name": value`.
    public mutating func field(_ name: String, _ value: String) { key(name); string(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: String, _ value: some BinaryInteger) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: String, _ value: Int) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: String, _ value: Int64) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: String, _ value: Bool) { key(name); bool(value) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// Digits straight into the output: events and snapshots are mostly numbers and short strings, and going
    /// through `String(value)` built a string per number.
    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Least significant digit first, then turned around in place. The magnitude is unsigned, so that Int64.min
        // has one too.
        let start = bytes.count
        var rest = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        // Through a pointer: reversing `bytes[start...]` took the slice out of the array, copied it (the array still
        // held its buffer) and put it back, an allocation per number.
        bytes.withUnsafeMutableBufferPointer { $0[start...].reverse() }
    }

    /// Writes `value` quoted, copying runs that need no escape in one go.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // A native string's bytes are there to read (small ones from the stack); a bridged one is copied once first.
        if value.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var text = value
            text.makeContiguousUTF8()
            _ = text.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Checks eight bytes at a time where it can: an event or snapshot is a few kilobytes of strings, almost none
    /// of them with a byte to escape, and a byte at a time the check was most of the writer's work.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        var runStart = 0
        var position = 0
        while position < utf8.count {
            if position + 8 <= utf8.count,
               !Self.mayNeedEscape(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)) {
                position += 8
                continue
            }
            let byte = base[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if runStart < position { bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart)) }
                appendEscape(for: byte)
                runStart = position + 1
            }
            position += 1
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: utf8.count - runStart)) }
    }

    /// Whether any of eight bytes is below 0x20, a quote or a backslash (it never misses one; the bytes are then
    /// looked at one by one). A byte is zero after `x ^ c` exactly where it was `c`, and
    /// `(v - 0x01…01) & ~v & 0x80…80` is non-zero exactly when some byte of `v` is zero; with 0x20 in place of
    /// 0x01 the same finds a byte below 0x20.
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return control | ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs) != 0
    }

    private mutating func appendEscape(for byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0xF)])
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
