/// Produces an in-memory body.
final class BytesProducer: HTTPBodyProducer {
    private let bytes: [UInt8]
    /// Produces `bytes`.
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < UInt64(bytes.count) else { return .end }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        }
        return .bytes(count)
    }
}
