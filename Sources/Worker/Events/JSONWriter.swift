import Foundation
import UploadEngine

/// A small, fast JSON writer for the worker's hot output (one or more events per job): fields in a fixed order,
/// no reflection. Values are written as they come; the caller keeps objects balanced.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` — the value follows.
    mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        writeString(value)
        needsComma = true
    }

    mutating func int(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// Writes an `EventTime` timestamp as a string, straight into the output.
    mutating func time(_ date: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        EventTime.append(date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    mutating func value(_ value: JSONValue) {
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

    // Convenience for `"name": value` pairs.
    mutating func field(_ name: String, _ value: String) { key(name); string(value) }
    mutating func field(_ name: String, _ value: some BinaryInteger) { key(name); int(value) }
    mutating func field(_ name: String, _ value: Bool) { key(name); bool(value) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// Writes `value` quoted, copying runs that need no escape in one go.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // A native string is contiguous already (this costs a flag check); a bridged one is copied once, so the
        // storage below is always available.
        var text = value
        text.makeContiguousUTF8()
        _ = text.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for position in utf8.indices {
            let byte = utf8[position]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < position { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position])) }
            appendEscape(for: byte)
            runStart = position + 1
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
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
