extension JSONParser {
    /// Parses the number at `index`: `.int` when it has no fraction or exponent and fits 64 bits, else `.double`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw JSONParseError(.invalidNumber, at: start) }
        } else {
            skipDigits()
        }
        let integerEnd = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try requireDigits(numberStart: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try requireDigits(numberStart: start)
        }
        if isInteger, let value = integer(digits: (negative ? start + 1 : start)..<integerEnd, negative: negative) {
            return .int(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // The grammar was checked above, so the standard library's conversion only has to round correctly.
        guard let value = Double(text), value.isFinite else { throw JSONParseError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    /// The value of `digits`, or nil when it does not fit 64 bits. Accumulates negatively so `Int64.min` fits.
    private func integer(digits: Range<Int>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for position in digits {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.subtractingReportingOverflow(Int64(bytes[position] - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private mutating func requireDigits(numberStart: Int) throws(JSONParseError) {
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: numberStart) }
        skipDigits()
    }

    private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
