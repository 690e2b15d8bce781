import Glibc

/// Produces a file's bytes with `pread`; owns the descriptor and closes it when released.
public final class FileProducer: HTTPBodyProducer {
    private let descriptor: Int32
    /// The file's size when it was opened.
    public let length: UInt64

    /// Opens the file; nil when it cannot be opened.
    public init?(path: String) {
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

    /// Reads the bytes from `offset` on; a failed read ends the body with `.failure`.
    public func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        guard offset < length else { return .end }
        let count = pread(descriptor, buffer.baseAddress, min(buffer.count, Int(length - offset)), off_t(offset))
        return count > 0 ? .bytes(count) : .failure
    }

    deinit {
        close(descriptor)
    }
}
