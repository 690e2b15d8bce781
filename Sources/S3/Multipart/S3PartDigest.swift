import Foundation
import UploadEngine

#if canImport(Glibc)
import Glibc
#endif

/// The SHA-256 of one part of a staged file, as a part's `x-amz-checksum-sha256` carries it.
///
/// Reading blocks, so it runs on a dispatch queue of its own, never on Swift's cooperative pool.
enum S3PartDigest {
    private static let queue = DispatchQueue(label: "attache.s3.part-digest", qos: .utility, attributes: .concurrent)
    private static let chunkSize = 1 << 20

    /// The hex SHA-256 of bytes `range` of a staged file.
    /// - Throws: `UploadError` `ERR_S3_UPLOAD_FAILED` (not retryable) when the file cannot be read in full.
    static func sha256Hex(of bytes: StagedBytes, range: Range<Int64>) async throws -> String {
        let hex: String = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try digest(bytes, range) }) }
        }
        try Task.checkCancellation()
        return hex
    }

    private static func digest(_ bytes: StagedBytes, _ range: Range<Int64>) throws -> String {
        switch bytes {
        case .copy(let path):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure("cannot open the staged file") }
            defer { close(descriptor) }
            return try digest(range) { buffer, offset in
                while true {
                    let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
                    if count >= 0 { return count }
                    if errno != EINTR { throw failure("cannot read the staged file") }
                }
            }
        case .source(let source):
            return try digest(range) { buffer, offset in
                do {
                    return try source.read(into: buffer, at: offset)
                } catch {
                    throw UploadError(.s3UploadFailed, "cannot read the source: \(error)", retryable: false)
                }
            }
        }
    }

    /// The hex SHA-256 of `range`, read through `read` (a positioned read: bytes read, 0 at the end).
    private static func digest(
        _ range: Range<Int64>, read: (UnsafeMutableRawBufferPointer, Int64) throws -> Int
    ) throws -> String {
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = Int(min(Int64(chunkSize), range.upperBound - offset))
            let count = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), offset)
            if count == 0 {
                throw UploadError(
                    .s3UploadFailed, "the staged file ends at byte \(offset), before \(range.upperBound)", retryable: false)
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
        return hasher.finalizeHex()
    }

    private static func failure(_ what: String) -> UploadError {
        UploadError(.s3UploadFailed, "\(what): \(String(cString: strerror(errno)))", retryable: false)
    }
}
