import Foundation

/// A small, fast JSON writer for hot output (events, presign calls, messages): fields in a fixed order, no
/// reflection. Values are written as they come; the caller keeps objects balanced.
///
/// The output is a buffer the writer owns alone (it cannot be copied), so writing a piece checks its room once and
/// copies: an event is some 200 short strings and numbers, and each append to an array checked the array's
/// uniqueness and capacity and went through its generic copy, about 300 instructions a string.
public struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var written = 0
    private var capacity: Int
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        // From malloc, so that `data()` can hand the buffer to `Data` as it is, with `free` to give it back.
        guard let memory = malloc(self.capacity) else { fatalError("out of memory for \(self.capacity) bytes of JSON") }
        base = memory.assumingMemoryBound(to: UInt8.self)
    }

    deinit {
        free(base)
    }

    /// A copy of the JSON written so far, for what keeps it as an array.
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: written))
    }

    /// Lends the JSON written so far, without copying it.
    public borrowing func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// The JSON written, as a string (one copy).
    public consuming func string() -> String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The JSON written, as `Data` that takes the writer's buffer over instead of copying it: for what goes on to
    /// Kafka as a record's value.
    public consuming func data() -> Data {
        let (base, written) = (self.base, self.written)
        discard self
        return Data(bytesNoCopy: base, count: written, deallocator: .free)
    }

    /// The number of bytes written so far.
    public var byteCount: Int { written }

    /// Opens an object (`{`).
    public mutating func beginObject() {
        reserve(2)
        separate()
        put(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the innermost object (`}`).
    public mutating func endObject() {
        reserve(1)
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array (`[`).
    public mutating func beginArray() {
        reserve(2)
        separate()
        put(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the innermost array (`]`).
    public mutating func endArray() {
        reserve(1)
        put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` — the value follows. For the names written in the code: the literal's bytes are copied as
    /// they are, with none of the escape checks a `String` gets (about 100 names a small job's events and snapshot
    /// write, some 200 instructions each through the checks). A name made at run time, or one with a quote, a
    /// backslash or a control character, goes through ``key(named:)``.
    public mutating func key(_ name: StaticString) {
        name.withUTF8Buffer { utf8 in
            assert(!utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") },
                   "a name that needs escaping goes through key(named:)")
            reserve(utf8.count + 4)
            separate()
            put(UInt8(ascii: "\""))
            if let start = utf8.baseAddress { copy(start, utf8.count) }
            put(UInt8(ascii: "\""))
            put(UInt8(ascii: ":"))
        }
        needsComma = false
    }

    /// Writes `"name":`, escaped — the value follows.
    public mutating func key(named name: String) {
        writeString(name, then: UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a string value, escaped.
    public mutating func string(_ value: String) {
        writeString(value, then: nil)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func int(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) { return int(small) }
        unquoted(String(value))
    }

    /// Writes an integer value. Concrete, unlike the generic form, which a caller in another module reaches
    /// unspecialised (every operation through witness tables): the one events and snapshots call.
    public mutating func int(_ value: Int64) {
        reserve(21)
        separate()
        appendDecimal(value)
        needsComma = true
    }

    /// Writes an integer value (the concrete form, as for `Int64`).
    public mutating func int(_ value: Int) { int(Int64(value)) }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    /// Writes a string of `count` bytes that `write` puts straight into the output, unescaped: for text the caller
    /// knows needs no escaping (timestamps, digits), without building a `String` first.
    /// `write` must fill all `count` bytes: whatever it leaves is uninitialised memory in the output.
    mutating func rawString(count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        reserve(count + 3)
        separate()
        put(UInt8(ascii: "\""))
        write(UnsafeMutableBufferPointer(start: base + written, count: count))
        written += count
        put(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        literal("null")
    }

    /// Writes any JSON value; object members are written sorted by name, so equal values give equal bytes.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let number): int(number)
        case .double(let number):
            guard number.isFinite else { return null() }
            unquoted("\(number)")
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            elements.forEach { self.value($0) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                key(named: name)
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
            reserve(1)
            put(UInt8(ascii: "\n"))
            indent(depth)
            endArray()
        case .object(let members) where !members.isEmpty:
            beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                startLine(depth: depth + 1)
                key(named: name)
                reserve(1)
                put(UInt8(ascii: " "))
                indentedValue(member, depth: depth + 1)
            }
            reserve(1)
            put(UInt8(ascii: "\n"))
            indent(depth)
            endObject()
        default:
            self.value(value)
        }
    }

    /// Ends the previous member or element (its comma) and starts the next one on a new line at `depth`.
    private mutating func startLine(depth: Int) {
        reserve(2)
        separate()
        put(UInt8(ascii: "\n"))
        indent(depth)
        needsComma = false
    }

    private mutating func indent(_ depth: Int) {
        reserve(2 * depth)
        (base + written).initialize(repeating: UInt8(ascii: " "), count: 2 * depth)
        written += 2 * depth
    }

    /// Writes `"name": value` (a name written in the code: see ``key(_:)``).
    public mutating func field(_ name: StaticString, _ value: String) { key(name); string(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: StaticString, _ value: some BinaryInteger) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: StaticString, _ value: Int) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: StaticString, _ value: Int64) { key(name); int(value) }
    /// Writes `"name": value`.
    public mutating func field(_ name: StaticString, _ value: Bool) { key(name); bool(value) }
    /// Writes `"name": value` for a name made at run time, escaped.
    public mutating func field(named name: String, _ value: String) { key(named: name); string(value) }
    /// Writes `"name": value` for a name made at run time, escaped.
    public mutating func field(named name: String, _ value: Int) { key(named: name); int(value) }

    /// Makes room for `count` more bytes: the one check before a piece is written with `put` and `copy`.
    @inline(__always)
    private mutating func reserve(_ count: Int) {
        if capacity - written < count { grow(toFit: count) }
    }

    @inline(never)
    private mutating func grow(toFit count: Int) {
        let grown = max(written + count, 2 * capacity)
        guard let moved = realloc(base, grown) else { fatalError("out of memory for \(grown) bytes of JSON") }
        base = moved.assumingMemoryBound(to: UInt8.self)
        capacity = grown
    }

    /// One byte, into room already reserved.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[written] = byte
        written += 1
    }

    /// Bytes, into room already reserved.
    @inline(__always)
    private mutating func copy(_ start: UnsafePointer<UInt8>, _ count: Int) {
        (base + written).initialize(from: start, count: count)
        written += count
    }

    /// A comma if a member or element came before, into room already reserved.
    @inline(__always)
    private mutating func separate() {
        if needsComma { put(UInt8(ascii: ",")) }
    }

    /// A value written as its text, unquoted (a number beyond `Int64`, a double).
    private mutating func unquoted(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            reserve(utf8.count + 1)
            separate()
            if let start = utf8.baseAddress { copy(start, utf8.count) }
        }
        needsComma = true
    }

    private mutating func literal(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount + 1)
        separate()
        copy(text.utf8Start, text.utf8CodeUnitCount)
        needsComma = true
    }

    /// Digits straight into the output (room for 20 reserved): events and snapshots are mostly numbers and short
    /// strings, and going through `String(value)` built a string per number.
    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        // Least significant digit first, then turned around in place. The magnitude is unsigned, so that Int64.min
        // has one too.
        let start = written
        var rest = value.magnitude
        repeat {
            put(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        var digits = UnsafeMutableBufferPointer(start: base + start, count: written - start)
        digits.reverse()
    }

    /// Writes `value` quoted — after a comma if one is due, followed by `then` if given — copying runs that need no
    /// escape in one go.
    private mutating func writeString(_ value: String, then: UInt8?) {
        var text = value
        // A native string's bytes are there to read (small ones from the stack); a bridged one is made native first.
        if text.utf8.withContiguousStorageIfAvailable({ writeString($0, then: then) }) == nil {
            text.makeContiguousUTF8()
            _ = text.utf8.withContiguousStorageIfAvailable { writeString($0, then: then) }
        }
    }

    /// Room for the separator, the quotes, `then` and every byte unescaped is reserved once; an escape (rare in
    /// events and snapshots) reserves its own extra room.
    ///
    /// Checks eight bytes at a time where it can: an event or snapshot is a few kilobytes of strings, almost none
    /// of them with a byte to escape, and a byte at a time the check was most of the writer's work.
    private mutating func writeString(_ utf8: UnsafeBufferPointer<UInt8>, then: UInt8?) {
        reserve(utf8.count + 4)
        separate()
        put(UInt8(ascii: "\""))
        if let source = utf8.baseAddress {
            var runStart = 0
            var position = 0
            var tailChecked = false
            while position < utf8.count {
                let remaining = utf8.count - position
                if remaining >= 8 {
                    if !Self.mayNeedEscape(UnsafeRawPointer(source + position).loadUnaligned(as: UInt64.self)) {
                        position += 8
                        continue
                    }
                } else if !tailChecked {
                    // The last few bytes (most keys are shorter than a word) checked as one word, padded with
                    // spaces, which need no escape.
                    tailChecked = true
                    var tail: UInt64 = 0x2020_2020_2020_2020
                    withUnsafeMutableBytes(of: &tail) { $0.baseAddress!.copyMemory(from: source + position, byteCount: remaining) }
                    if !Self.mayNeedEscape(tail) {
                        position = utf8.count
                        continue
                    }
                }
                let byte = source[position]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    copy(source + runStart, position - runStart)
                    // The escape's six bytes at most, and what is left to write as reserved above.
                    reserve(6 + utf8.count - position + 3)
                    appendEscape(for: byte)
                    runStart = position + 1
                }
                position += 1
            }
            copy(source + runStart, utf8.count - runStart)
        }
        put(UInt8(ascii: "\""))
        if let then { put(then) }
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

    /// An escape, into room already reserved (six bytes).
    private mutating func appendEscape(for byte: UInt8) {
        put(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): put(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): put(UInt8(ascii: "\\"))
        case 0x0A: put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "t"))
        default:
            put(UInt8(ascii: "u"))
            put(UInt8(ascii: "0"))
            put(UInt8(ascii: "0"))
            put(Self.hexDigit(byte >> 4))
            put(Self.hexDigit(byte & 0xF))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// The writer owns its buffer alone (it cannot be copied), so it may move between tasks.
extension JSONWriter: @unchecked Sendable {}
