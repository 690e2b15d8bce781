/// Calls a librdkafka function that reports failure text through an `errstr, errstr_size` pair.
enum RDErrorBuffer {
    /// Runs `body` with a zeroed 512-byte buffer; returns its result and the text written into the buffer.
    static func with<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T) -> (result: T, text: String) {
        let capacity = 512
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 0, count: capacity)
        let result = body(buffer, capacity)
        return (result, String(cString: buffer))
    }
}
