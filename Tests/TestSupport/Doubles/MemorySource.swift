import Foundation
import Synchronization
import UploadEngine

/// An open source whose bytes are in memory: staged bytes read in place, without a file. It counts its reads.
public final class MemorySource: OpenSourceFile {
    public let bytes: Data
    private let readCount = Mutex(0)

    public init(_ bytes: Data) {
        self.bytes = bytes
    }

    /// `count` test bytes.
    public convenience init(count: Int) {
        self.init(TestBytes.make(count))
    }

    public var size: Int64 { Int64(bytes.count) }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        readCount.withLock { $0 += 1 }
        let start = Int(min(offset, size))
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
        }
        return count
    }

    /// Reads so far.
    public var reads: Int { readCount.withLock { $0 } }
}
