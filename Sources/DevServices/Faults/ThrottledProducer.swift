import Foundation
import Glibc

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

/// Produces an in-memory body.
final class BytesProducer: HTTPBodyProducer {
    private let bytes: [UInt8]
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

/// Produces a file's bytes with `pread`; owns the descriptor.
final class FileProducer: HTTPBodyProducer {
    private let descriptor: Int32
    /// The file's size when it was opened.
    let length: UInt64

    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        length = UInt64(status.st_size)
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < length else { return .end }
        let count = pread(descriptor, buffer.baseAddress, min(buffer.count, Int(length - offset)), off_t(offset))
        return count > 0 ? .bytes(count) : .failure
    }

    deinit {
        close(descriptor)
    }
}
