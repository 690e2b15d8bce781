import Foundation
import HTTPTransport
import UploadEngine

/// The staging directory: every staged file gets a generated name (never the user's) and mode 0600.
///
/// File work runs on a dedicated dispatch queue, never on Swift's cooperative pool, because reads and writes of
/// large files block.
public struct StagingArea: Sendable {
    public let directory: String
    static let queue = DispatchQueue(label: "attache.staging", qos: .utility, attributes: .concurrent)
    static let chunkSize = 1 << 20
    /// Digest passes over `path` sources (before an upload that signs the digest) run one per core. Hashing is CPU
    /// work as much as I/O: one per core finishes a job's first files early, so their presign and upload overlap
    /// the passes still under way instead of every file finishing at the same late moment.
    /// A `path` source up to this size is hashed in the same trip off the pool that opens it, outside
    /// `copySlots`: hashing 256 KiB takes about as long as the two thread hand-offs a separate trip costs.
    static let inlineDigestBytes: Int64 = 256 * 1024
    static let copySlots = FairSlots(capacity: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Creates the directory (0700) if needed.
    public init(directory: String) throws {
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        self.directory = absolute
    }

    /// A fresh path inside the staging directory.
    func newPath() -> String {
        "\(directory)/\(UUID().uuidString.lowercased()).part"
    }

    /// Runs blocking file work off the cooperative pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Opens a new staging file for writing (exclusive create, 0600).
    static func create(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw localFailure("cannot create a staging file") }
        return fd
    }

    /// Reads a file to its end in chunks, from its start, handing each chunk and the running total to `body`.
    /// Positioned reads: a descriptor others read too (an open source) is not moved.
    ///
    /// - Parameter expectedSize: the size the caller expects, when known: a small file gets a small buffer, since
    ///   allocating a whole chunk per file would cost more than copying a 16 KiB file.
    static func pump(from input: Int32, expectedSize: Int64? = nil, readFailure: @autoclosure () -> UploadError,
                     _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws -> Int64 {
        // One page more than expected, so that a file that grew since it was measured still ends in few reads.
        let capacity = expectedSize.map { Int(clamping: max(0, $0)) + 4096 }.map { min($0, chunkSize) } ?? chunkSize
        // Uninitialised on purpose: every byte handed on was first written by `read`.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = pread(input, buffer.baseAddress, buffer.count, off_t(total))
            if count < 0 {
                if errno == EINTR { continue }
                throw readFailure()
            }
            if count == 0 { return total }
            total += Int64(count)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), total)
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw localFailure("cannot write a staging file")
            }
            offset += written
        }
    }
}

/// A failure of the worker's own disk (full, permissions): retryable, since the file itself is not at fault.
func localFailure(_ what: String) -> UploadError {
    UploadError(.sourceFetchFailed, "\(what): \(String(cString: strerror(errno)))", retryable: true)
}
