import EmbeddedHTTP
import Foundation

/// A body of `total` filler bytes sent `chunk` bytes at a time, one chunk per `interval`: a slow or trickling
/// server. It paces the server's connection thread (never the test's), and stops once `total` bytes are out.
final class PacedProducer: HTTPBodyProducer {
    private let total: UInt64
    private let chunk: Int
    private let interval: TimeInterval

    init(total: Int, chunk: Int, every interval: Duration) {
        self.total = UInt64(total)
        self.chunk = chunk
        let parts = interval.components
        self.interval = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < total else { return .end }
        if offset > 0 { Thread.sleep(forTimeInterval: interval) }
        let count = min(buffer.count, chunk, Int(total - offset))
        buffer.initializeMemory(as: UInt8.self, repeating: 0x61)
        return .bytes(count)
    }
}
