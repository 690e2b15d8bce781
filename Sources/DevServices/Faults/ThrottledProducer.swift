import EmbeddedHTTP
import Foundation

/// Produces a response body at a limited rate, in small blocks, from the body it replaces.
///
/// Blocks the connection's thread between blocks; a released or closed gate lets the rest go at full speed.
final class ThrottledProducer: HTTPBodyProducer {
    private let inner: any HTTPBodyProducer
    private let bytesPerSecond: Int
    private let gate: StallGate
    private var throttled = true

    private init(inner: any HTTPBodyProducer, bytesPerSecond: Int, gate: StallGate) {
        self.inner = inner
        self.bytesPerSecond = bytesPerSecond
        self.gate = gate
    }

    /// `body` sent at about `bytesPerSecond`; a file that cannot be opened is left as is (and answered 500).
    static func throttle(_ body: HTTPResponseBody, bytesPerSecond: Int, gate: StallGate) -> HTTPResponseBody {
        switch body {
        case .bytes(let bytes):
            return .stream(length: UInt64(bytes.count), producer: ThrottledProducer(
                inner: BytesProducer(bytes), bytesPerSecond: bytesPerSecond, gate: gate))
        case .file(let path):
            guard let file = FileProducer(path: path) else { return body }
            return .stream(length: file.length, producer: ThrottledProducer(
                inner: file, bytesPerSecond: bytesPerSecond, gate: gate))
        case .stream(let length, let producer):
            return .stream(length: length, producer: ThrottledProducer(
                inner: producer, bytesPerSecond: bytesPerSecond, gate: gate))
        }
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard throttled else { return inner.produce(into: buffer, at: offset) }
        // Blocks of a tenth of a second's worth keep the pace smooth and each wait short.
        let block = min(buffer.count, max(1, bytesPerSecond / 10))
        let chunk = inner.produce(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<block]), at: offset)
        if case .bytes(let count) = chunk {
            if gate.wait(until: Date().addingTimeInterval(Double(count) / Double(bytesPerSecond))) {
                throttled = false
            }
        }
        return chunk
    }
}
