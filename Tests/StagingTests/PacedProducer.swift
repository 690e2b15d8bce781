import EmbeddedHTTP
import Foundation
import Synchronization

/// A body of `total` filler bytes sent `chunk` bytes at a time, one chunk per `interval`: a slow or trickling
/// server. It paces the server's connection thread (never the test's), and stops once `total` bytes are out.
final class PacedProducer: HTTPBodyProducer, Sendable {
    private let total: UInt64
    private let chunk: Int
    private let interval: TimeInterval
    private let handedOut = Atomic<UInt64>(0)

    init(total: Int, chunk: Int, every interval: Duration) {
        self.total = UInt64(total)
        self.chunk = chunk
        let parts = interval.components
        self.interval = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// Whether every byte was handed to the server: a client that gave up while this is false gave up on a body
    /// still on its way, however slowly a loaded machine ran the test.
    var finished: Bool { handedOut.load(ordering: .relaxed) >= total }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < total else { return .end }
        if offset > 0 { Thread.sleep(forTimeInterval: interval) }
        let count = min(buffer.count, chunk, Int(total - offset))
        buffer.initializeMemory(as: UInt8.self, repeating: 0x61)
        handedOut.store(offset + UInt64(count), ordering: .relaxed)
        return .bytes(count)
    }
}
