import EmbeddedHTTP
import Synchronization

/// Bytes a test server handed out, counted on the server's connection thread and read by the test.
public final class ProducedBytes: Sendable {
    private let count = Atomic<Int64>(0)

    public init() {}

    public var value: Int64 { count.load(ordering: .relaxed) }

    public func add(_ bytes: Int64) { count.add(bytes, ordering: .relaxed) }
}

/// A response body without a length that goes on until `total` bytes, counting what it produced: for checking that
/// a client stops reading at its limit. Used on one connection thread.
public final class EndlessProducer: HTTPBodyProducer {
    private let total: Int64
    private let counter: ProducedBytes

    public init(total: Int64, counter: ProducedBytes) {
        self.total = total
        self.counter = counter
    }

    public func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        let remaining = total - Int64(offset)
        guard remaining > 0 else { return .end }
        let count = Int(min(Int64(buffer.count), remaining))
        buffer.initializeMemory(as: UInt8.self, repeating: 0x5A)
        counter.add(Int64(count))
        return .bytes(count)
    }
}
