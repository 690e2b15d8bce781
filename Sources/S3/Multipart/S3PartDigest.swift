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

    /// The base64 SHA-256 of bytes `range` of the file at `path`.
    /// - Throws: `UploadError` `ERR_S3_UPLOAD_FAILED` (not retryable) when the file cannot be read in full.
    static func sha256Base64(ofFile path: String, range: Range<Int64>) async throws -> String {
        let hex: String = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try digest(path, range) }) }
        }
        try Task.checkCancellation()
        return S3Checksum.base64(sha256Hex: hex) ?? ""
    }

    private static func digest(_ path: String, _ range: Range<Int64>) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open the staged file") }
        defer { close(descriptor) }
        let hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = Int(min(Int64(chunkSize), range.upperBound - offset))
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw failure("cannot read the staged file") }
            if count == 0 {
                throw UploadError(
                    .s3UploadFailed, "the staged file ends at byte \(offset), before \(range.upperBound)", retryable: false)
            }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += Int64(count)
        }
        return hasher.finalizeHex()
    }

    private static func failure(_ what: String) -> UploadError {
        UploadError(.s3UploadFailed, "\(what): \(String(cString: strerror(errno)))", retryable: false)
    }
}
