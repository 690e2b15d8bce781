/// Produces an in-memory body, for wrappers that need a producer whatever the body was.
public final class BytesProducer: HTTPBodyProducer {
    private let bytes: [UInt8]
    /// Produces `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Copies the bytes from `offset` on, as many as fit.
    public func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < UInt64(bytes.count) else { return .end }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        }
        return .bytes(count)
    }
}
