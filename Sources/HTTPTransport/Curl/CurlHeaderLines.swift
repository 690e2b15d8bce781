/// A request's header lines as libcurl's header list takes them: `Name: value`, `Name;` for an empty value (libcurl's
/// spelling of a header sent empty) or `Name:` to keep libcurl from adding one, each ended by a NUL, in one buffer.
///
/// Names and values are checked before a transfer starts (no control characters: `HTTPRequest.validateHeaders`), so
/// each line is one C string.
struct CurlHeaderLines {
    private var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// A header to send; an empty value is sent as such.
    mutating func append(name: String, value: String) {
        bytes.append(contentsOf: name.utf8)
        if value.isEmpty {
            bytes.append(UInt8(ascii: ";"))
        } else {
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: value.utf8)
        }
        bytes.append(0)
    }

    /// A header libcurl would add of its own accord, left out.
    mutating func append(removing name: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(0)
    }

    /// Calls `body` with each line, in order, until it returns false; whether every call returned true.
    func forEachLine(_ body: (UnsafePointer<CChar>) -> Bool) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            var start = 0
            while start < buffer.count {
                let end = buffer[start...].firstIndex(of: 0) ?? buffer.count
                let line = UnsafeRawPointer(base + start).assumingMemoryBound(to: CChar.self)
                guard body(line) else { return false }
                start = end + 1
            }
            return true
        }
    }
}
